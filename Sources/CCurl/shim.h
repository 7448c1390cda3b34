#pragma once
// Swift cannot call C variadic functions, so every curl_easy_setopt / curl_easy_getinfo use goes
// through one of these typed wrappers. Nothing else lives here.
#include <curl/curl.h>

typedef size_t (*fp_curl_data_callback)(char *data, size_t size, size_t count, void *user);
typedef int (*fp_curl_xferinfo_callback)(void *user, curl_off_t dltotal, curl_off_t dlnow,
                                         curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode fp_curl_setopt_long(CURL *h, CURLoption o, long v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode fp_curl_setopt_string(CURL *h, CURLoption o, const char *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode fp_curl_setopt_pointer(CURL *h, CURLoption o, void *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode fp_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode fp_curl_setopt_data_callback(CURL *h, CURLoption o, fp_curl_data_callback v) {
    return curl_easy_setopt(h, o, v);
}
static inline CURLcode fp_curl_setopt_xferinfo_callback(CURL *h, fp_curl_xferinfo_callback v) {
    return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, v);
}
static inline CURLcode fp_curl_getinfo_long(CURL *h, CURLINFO i, long *v) {
    return curl_easy_getinfo(h, i, v);
}
static inline CURLcode fp_curl_getinfo_string(CURL *h, CURLINFO i, char **v) {
    return curl_easy_getinfo(h, i, v);
}
static inline CURLMcode fp_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) {
    return curl_multi_setopt(m, o, v);
}
/// The result code of a finished transfer's message (a union member Swift reads awkwardly).
static inline CURLcode fp_curl_msg_result(const CURLMsg *message) {
    return message->data.result;
}
