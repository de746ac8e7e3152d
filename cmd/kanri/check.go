package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/kanri/kanri/cmd/kanri/features"
	"github.com/kanri/kanri/internal/bolt"
)

// runCheck is `kanri check [-repair] [-data-dir DIR]`: it verifies the
// embedded store's file offline (bolt.Store.Check), and with -repair
// rebuilds what it finds wrong. It reads the data directory as the server
// does (-data-dir, else KANRI_DATA_DIR, else ./data) and fails when
// problems remain. The server must be stopped: the file has one owner.
func runCheck(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("kanri check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := getenv("KANRI_DATA_DIR")
	if dir == "" {
		dir = "./data"
	}
	fs.StringVar(&dir, "data-dir", dir, "directory of the embedded store (env KANRI_DATA_DIR)")
	repair := fs.Bool("repair", false, "rebuild the indexes and expiry entries found wrong")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, bolt.FileName)); err != nil {
		return fmt.Errorf("check: no store in %s: %w", dir, err)
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	st, err := bolt.Open(dir, features.Specs(), bolt.Options{Logger: log})
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := st.Check(*repair)
	if err != nil {
		return err
	}
	for _, p := range rep.Problems {
		fmt.Fprintln(stdout, p)
	}
	if rep.Count > len(rep.Problems) {
		fmt.Fprintf(stdout, "… and %d more\n", rep.Count-len(rep.Problems))
	}
	for _, c := range rep.Repaired {
		fmt.Fprintf(stdout, "repaired %s\n", c)
	}
	fmt.Fprintf(stdout, "%d documents, %d index entries, %d expiry entries: %d problems\n", rep.Documents, rep.IndexEntries, rep.ExpiryKeys, rep.Count)
	if rep.Count > 0 {
		if !*repair {
			return errors.New("check: the store has problems; run kanri check -repair")
		}
		return errors.New("check: problems remain after the repair")
	}
	return nil
}
