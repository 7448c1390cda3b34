#pragma once
// libxml2's streaming reader for DASH manifests, and its HTML parser for web pages. The reader's
// errors would go to stderr through a global handler; this one handler keeps the first error of
// one reader in the caller's struct instead, so the Swift side turns it into one sentence. (The
// HTML parser recovers from anything and is told to report nothing.) Nothing else lives here.
#include <libxml/xmlversion.h>
// Debian builds libxml2 with ICU, whose headers clash with the copy inside Foundation
// ("UErrorCode has different definitions"); nothing here uses libxml2's ICU converters.
#undef LIBXML_ICU_ENABLED
#include <libxml/xmlreader.h>
#include <libxml/HTMLparser.h>
#include <stdio.h>

typedef struct {
    int code;
    int line;
    char message[200];
} fp_xml_error;

static void fp_xml_keep_first_error(void *user, xmlErrorPtr error) {
    fp_xml_error *kept = (fp_xml_error *)user;
    if (kept == NULL || error == NULL || kept->code != 0) return;
    kept->code = error->code != 0 ? error->code : -1;
    kept->line = error->line;
    snprintf(kept->message, sizeof kept->message, "%s", error->message != NULL ? error->message : "");
}

/// Routes `reader`'s errors and warnings into `kept` (which must outlive the reader's use).
static inline void fp_xml_reader_keep_errors(xmlTextReaderPtr reader, fp_xml_error *kept) {
    xmlTextReaderSetStructuredErrorHandler(reader, fp_xml_keep_first_error, kept);
}
