#pragma once

#include <cstdio>
#include <cstring>

namespace baton::langoption {

/*!
 * How many arguments after the program's name are `--lang LANG` (2) or
 * `--lang=LANG` (1); 0 without them.
 */
inline int count(int argc, char **argv)
{
    if (argc > 1 && std::strncmp(argv[1], "--lang=", 7) == 0)
        return 1;
    if (argc > 2 && std::strcmp(argv[1], "--lang") == 0)
        return 2;
    return 0;
}

/*!
 * Sets `--lang` aside before a headless command, with a note on stderr:
 * the language is the dashboard's, and the commands write English. Only
 * the dashboard needs a display; `baton --lang fr status` runs on a server.
 */
inline void setAside(int *argc, char **argv)
{
    const int n = count(*argc, argv);
    if (n == 0)
        return;
    std::fprintf(stderr, "baton: --lang sets the language of the dashboard only; the commands "
                         "write English\n");
    // argv[argc] is the null pointer: it moves too.
    std::memmove(argv + 1, argv + 1 + n, sizeof(char *) * size_t(*argc - n));
    *argc -= n;
}

} // namespace baton::langoption
