#pragma once
// gettext and setlocale, which glibc provides but Swift's Glibc module does not export.
#include <libintl.h>
#include <locale.h>
