package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kanri/kanri/internal/seal"
)

// archiveKeysFile holds the generated archive keys in the data directory.
const archiveKeysFile = "archive.keys"

// archiveKeys returns the keys that seal the backup archives: from
// KANRI_ARCHIVE_KEYS, else from (or newly into) archive.keys in the data
// directory.
func archiveKeys(cfg Config) (*seal.Keys, error) {
	if cfg.ArchiveKeys != "" {
		k, err := seal.Parse(cfg.ArchiveKeys)
		if err != nil {
			return nil, fmt.Errorf("KANRI_ARCHIVE_KEYS: %w", err)
		}
		return k, nil
	}
	path := filepath.Join(cfg.DataDir, archiveKeysFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		b = []byte(seal.NewKey() + "\n")
		if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
			return nil, err
		}
		err = os.WriteFile(path, b, 0o600)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", archiveKeysFile, err)
	}
	k, err := seal.Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return k, nil
}

// runArchiveKeys is "kanri archive-keys rotate": a new key goes first in
// archive.keys of the data directory, which seals the archives made from
// the next start on; the older keys stay below it and open the archives
// sealed with them. With KANRI_ARCHIVE_KEYS set, it prints the new list
// for the operator to set instead.
func runArchiveKeys(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("kanri archive-keys", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := getenv("KANRI_DATA_DIR")
	if dir == "" {
		dir = "./data"
	}
	fs.StringVar(&dir, "data-dir", dir, "directory holding archive.keys (env KANRI_DATA_DIR)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kanri archive-keys rotate [-data-dir DIR]")
		fs.PrintDefaults()
	}
	if len(args) == 0 || args[0] != "rotate" {
		fs.Usage()
		return errors.New("archive-keys: say rotate")
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if set := getenv("KANRI_ARCHIVE_KEYS"); set != "" {
		if _, err := seal.Parse(set); err != nil {
			return fmt.Errorf("KANRI_ARCHIVE_KEYS: %w", err)
		}
		fmt.Fprintf(stdout, "%s\n%s\n", seal.NewKey(), strings.TrimSpace(set))
		fmt.Fprintln(stderr, "KANRI_ARCHIVE_KEYS is set: set it to the lines above (the new key first) on every instance, and restart them")
		return nil
	}
	path := filepath.Join(dir, archiveKeysFile)
	old, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("archive-keys: %w", err)
	}
	k, err := seal.Parse(string(old))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	next := seal.NewKey()
	if err := replaceFile(path, []byte(next+"\n"+string(old))); err != nil {
		return fmt.Errorf("archive-keys: %w", err)
	}
	nk, _ := seal.Parse(next)
	fmt.Fprintf(stdout, "archives made from the next start are sealed to %s; %s and older keys stay in %s to open older archives\n", nk.Recipient(), k.Recipient(), path)
	return nil
}

// replaceFile replaces the file at path with b, durably: a crash leaves
// the old file or the new one, never a part of either.
func replaceFile(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := errors.Join(tmp.Sync(), tmp.Close()); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
