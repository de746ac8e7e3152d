package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"

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
	printSpace(stdout, rep, filepath.Join(dir, bolt.FileName))
	fmt.Fprintf(stdout, "%d documents, %d index entries, %d expiry entries: %d problems\n", rep.Documents, rep.IndexEntries, rep.ExpiryKeys, rep.Count)
	if rep.Count > 0 {
		if !*repair {
			return errors.New("check: the store has problems; run kanri check -repair")
		}
		return errors.New("check: problems remain after the repair")
	}
	return nil
}

// printSpace prints what each container and each of its indexes takes:
// entries, bytes of keys and values, and bytes an entry; each container's
// pages, allocated and in use, and the expiry keys'; and the file's size
// a document.
func printSpace(w io.Writer, rep bolt.Report, file string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "container\tindex\tentries\tbytes\tbytes/entry\t")
	for _, c := range slices.Sorted(maps.Keys(rep.Space)) {
		names := slices.SortedFunc(maps.Keys(rep.Space[c]), func(a, b string) int {
			return cmp.Compare(rep.Space[c][b].Bytes, rep.Space[c][a].Bytes)
		})
		for _, ix := range names {
			u := rep.Space[c][ix]
			label := ix
			if ix == "" {
				label = "(documents)"
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t\n", c, label, u.Entries, u.Bytes, u.Bytes/int64(max(u.Entries, 1)))
		}
		switch p, ok := rep.Pages[c]; {
		case ok && p.Alloc > 0:
			fmt.Fprintf(tw, "%s\t(pages)\t\t%d\t%d%% in use\t\n", c, p.Alloc, p.InUse*100/p.Alloc)
		case ok:
			fmt.Fprintf(tw, "%s\t(pages)\t\t\tinline\t\n", c) // small enough to live in its parent's page
		}
	}
	if p := rep.ExpiryPages; p.Alloc > 0 {
		fmt.Fprintf(tw, "(expiry)\t(pages)\t%d\t%d\t%d%% in use\t\n", rep.ExpiryKeys, p.Alloc, p.InUse*100/p.Alloc)
	}
	tw.Flush()
	if fi, err := os.Stat(file); err == nil && rep.Documents > 0 {
		fmt.Fprintf(w, "store file: %d bytes, %d a document\n", fi.Size(), fi.Size()/int64(rep.Documents))
	}
}
