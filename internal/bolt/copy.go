package bolt

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	bbolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// ErrInUse is returned by CopyFile when another process (a running server)
// holds the store's file.
var ErrInUse = errors.New("bolt: the store's file is in use by another process")

// copyLockTimeout is how long CopyFile waits for the file's lock.
const copyLockTimeout = 2 * time.Second

// Copy writes a consistent copy of the whole store's file, as one read
// transaction sees it: every write committed before the copy began, none
// committed after. Writers go on meanwhile; bbolt keeps the pages the
// transaction reads until it ends. (A write that grows the file past its
// memory mapping, 1 GiB at first, waits until the copy ends.)
//
// open is called inside the transaction with the copy's length in bytes,
// before anything is written, and returns where to write it; an error
// from open ends the copy. On success exactly that many bytes are
// written, and the copy is a store file that Open accepts.
func (s *Store) Copy(open func(size int64) (io.Writer, error)) (int64, error) {
	return copyDB(s.db, open)
}

// CopyFile writes a copy of the store's file in dir, as Copy does, when no
// process has it open: the file is opened read-only under a shared lock,
// so a server starting meanwhile fails to open it until the copy ends. It
// returns ErrInUse when a running server holds the file.
func CopyFile(dir string, open func(size int64) (io.Writer, error)) (int64, error) {
	path := filepath.Join(dir, FileName)
	if _, err := os.Stat(path); err != nil {
		return 0, fmt.Errorf("bolt: no store in %s: %w", dir, err)
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: copyLockTimeout})
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return 0, fmt.Errorf("%w: %s", ErrInUse, path)
		}
		return 0, fmt.Errorf("bolt: open %s: %w", path, err)
	}
	defer db.Close()
	if err := isStore(db); err != nil {
		return 0, fmt.Errorf("bolt: %s: %w", path, err)
	}
	return copyDB(db, open)
}

// VerifyCopy opens the file at path, a copy that Copy or CopyFile wrote,
// read-only and reports whether it is a whole store file: bbolt accepts
// its meta pages, its length is the one they record, and it holds the
// store's own bucket. It does not read every page; `kanri check` does.
func VerifyCopy(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: copyLockTimeout})
	if err != nil {
		return fmt.Errorf("bolt: the copy %s is not a store file: %w", path, err)
	}
	defer db.Close()
	return db.View(func(tx *bbolt.Tx) error {
		if got, want := fi.Size(), tx.Size(); got != want {
			return fmt.Errorf("bolt: the copy %s has %d bytes, its meta page records %d", path, got, want)
		}
		if tx.Bucket(metaBucket) == nil {
			return fmt.Errorf("bolt: the copy %s is not a Kanri store (no %s bucket)", path, metaBucket)
		}
		return nil
	})
}

// isStore reports an error unless db holds the store's own bucket.
func isStore(db *bbolt.DB) error {
	return db.View(func(tx *bbolt.Tx) error {
		if tx.Bucket(metaBucket) == nil {
			return fmt.Errorf("not a Kanri store (no %s bucket)", metaBucket)
		}
		return nil
	})
}

// copyDB writes db as one read transaction sees it to the writer open
// returns.
func copyDB(db *bbolt.DB, open func(size int64) (io.Writer, error)) (int64, error) {
	var n int64
	err := db.View(func(tx *bbolt.Tx) error {
		w, err := open(tx.Size())
		if err != nil {
			return err
		}
		n, err = tx.WriteTo(w)
		return err
	})
	return n, err
}
