#pragma once
// GTK first, through CGtk's own header: clang then takes GTK's declarations from the CGtk module
// instead of making them CAdwaita's (adwaita.h includes gtk.h), which hid GTK's enum constants
// from every Swift file that imports CGtk alone.
#include "../CGtk/shim.h"
#include <adwaita.h>

// libadwaita 1.2 (Debian 12): GNOME's widgets on top of GTK 4 (style manager, about window,
// toasts, status page, preferences window and rows, message dialog). Only FetchUI uses it.
// What Swift cannot import (variadic functions, macros) as small typed functions, prefixed `fp_adw_`.
