package disk

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing n bytes of f from off
// to the disk now, without waiting (sync_file_range(2),
// SYNC_FILE_RANGE_WRITE): the sync at the end of an upload's PATCH then
// finds little left to write. Only a hint: its error is ignored.
func startWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}
