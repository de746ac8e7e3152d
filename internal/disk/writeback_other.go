//go:build !linux

package disk

import "os"

// startWriteback does nothing where sync_file_range(2) does not exist.
func startWriteback(*os.File, int64, int64) {}
