#pragma once
// Linux calls that Swift's Glibc module leaves out because they need _GNU_SOURCE.
#define _GNU_SOURCE 1
#include <fcntl.h>
#include <malloc.h>

/// Starts writing back the dirty pages of [offset, offset + count) without waiting for them.
static inline int fp_start_writeback(int fd, off_t offset, off_t count) {
    return sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE);
}

/// Allocates the disk blocks of [offset, offset + count) of a file without changing its size
/// (they read as zeros until written). Writes into them then skip delayed allocation.
static inline int fp_reserve(int fd, off_t offset, off_t count) {
    return fallocate(fd, FALLOC_FL_KEEP_SIZE, offset, count);
}

/// Frees the disk blocks of [offset, offset + count) of a file, keeping its size: the bytes
/// read back as zeros. Gives room back on a full disk without cutting later ranges.
static inline int fp_punch_hole(int fd, off_t offset, off_t count) {
    return fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, count);
}

