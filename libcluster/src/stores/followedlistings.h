#pragma once

#include <QString>

namespace baton {

/*!
 * A store that can answer list() of a prefix from a copy of it that its
 * watch keeps current, primed by one listing (client-go's informers): a
 * thousand elections each listing their candidates every heartbeat then
 * cost the store no request for it, only the watch's events. A listing it
 * cannot answer so (not primed yet, the watch broken or behind) goes to
 * the store as before. Follows are counted: the copy goes with the last.
 * A store whose watch cannot promise every change in order does not offer it.
 */
class FollowedListings
{
public:
    virtual ~FollowedListings() = default;
    virtual void followListing(const QString &prefix) = 0;
    virtual void unfollowListing(const QString &prefix) = 0;
};

} // namespace baton
