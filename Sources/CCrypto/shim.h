#pragma once
// OpenSSL's libcrypto, for AES-128-CBC decryption of HLS segments (EVP interface only).
// Nothing else lives here.
#include <openssl/evp.h>
#include <openssl/err.h>
