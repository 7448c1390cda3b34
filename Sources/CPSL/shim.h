// libpsl, the Public Suffix List (the library Debian's libcurl links for cookies): which
// endings of a host name are public suffixes, so that `example.com/v.mp4` reads as a link and
// `video.mp4` as a file name.
#include <libpsl.h>
