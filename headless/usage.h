#pragma once

#include <string>

/*!
 * `baton help`: the general parts (exit statuses, environment) around the
 * entry of each command, which its options unit defines.
 */
namespace baton::usage {

std::string text();

} // namespace baton::usage
