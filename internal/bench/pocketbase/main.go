// Command pocketbase runs PocketBase (v0.39, as a library, over its own
// SQLite files in -dir) for Kanri's benchmarks (internal/bench), which
// measure Kanri side by side with it: the peer a user would pick for a
// small self-hosted backend. It is its own module so that PocketBase's
// dependencies stay out of Kanri's.
//
// It defines what a PocketBase user would for Kanri's messaging: a
// "messages" collection (channel, sender, sender's name, text, sequence
// number, attachments, sent time; indexed by channel and sequence, as a
// channel's page reads them), a "reactions" collection (message, user,
// emoji; indexed by message) and a "files" collection (one file each),
// all readable and writable without signing in, and a superuser
// (bench@example.com, password "benchmark-password") for the backup API.
//
// With -messages N it writes N messages first, as Kanri's benchmarks
// write theirs (internal/bench, loadChannel: the same texts, a reaction
// on every 20th); with -files N, N files of -file-size pseudo-random
// bytes. It then checkpoints SQLite's write-ahead log into the database
// and prints {"msg":"pocketbase seeded","dataBytes":…,"storageBytes":…}
// on stderr. With -serve it then serves HTTP on a free loopback port and
// logs {"msg":"pocketbase listening","addr":…} on stderr once it accepts.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"log"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/pocketbase/pocketbase"
	"github.com/pocketbase/pocketbase/apis"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/filesystem"
	"github.com/pocketbase/pocketbase/tools/types"
)

// The superuser the benchmarks sign in as.
const (
	superuserEmail    = "bench@example.com"
	superuserPassword = "benchmark-password"
)

// words are the words of the benchmark's messages (as internal/bench's).
var words = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu"}

func main() {
	dir := flag.String("dir", "", "the data directory")
	messages := flag.Int("messages", 0, "messages to write before serving")
	files := flag.Int("files", 0, "files to write before serving")
	fileSize := flag.Int("file-size", 1<<20, "the size of each file written")
	serve := flag.Bool("serve", false, "serve HTTP after seeding")
	search := flag.Bool("search", false, "index the messages' words (SQLite's FTS5) as Kanri's search does")
	flag.Parse()
	log.SetFlags(0)

	app := pocketbase.NewWithConfig(pocketbase.Config{DefaultDataDir: *dir, HideStartBanner: true})
	if err := app.Bootstrap(); err != nil {
		log.Fatal(err)
	}
	if err := define(app); err != nil {
		log.Fatal(err)
	}
	if *search {
		// An external-content full-text index over the messages' text:
		// what a PocketBase user adds (by a migration) to search a channel
		// without reading every message, as Kanri's search index does,
		// kept up to date by a trigger as messages are written.
		for _, stmt := range []string{
			"CREATE VIRTUAL TABLE IF NOT EXISTS messages_search USING fts5(content, content='messages', content_rowid='rowid')",
			"CREATE TRIGGER IF NOT EXISTS messages_search_insert AFTER INSERT ON messages BEGIN INSERT INTO messages_search(rowid, content) VALUES (new.rowid, new.content); END",
		} {
			if _, err := app.DB().NewQuery(stmt).Execute(); err != nil {
				log.Fatal(err)
			}
		}
	}
	if *messages > 0 || *files > 0 {
		if err := seedMessages(app, *messages); err != nil {
			log.Fatal(err)
		}
		if err := seedFiles(app, *files, *fileSize); err != nil {
			log.Fatal(err)
		}
		if _, err := app.DB().NewQuery("PRAGMA wal_checkpoint(TRUNCATE)").Execute(); err != nil {
			log.Fatal(err)
		}
		report(map[string]any{"msg": "pocketbase seeded", "dataBytes": sizeOf(filepath.Join(*dir, "data.db")) + sizeOf(filepath.Join(*dir, "data.db-wal")), "storageBytes": treeSize(filepath.Join(*dir, "storage"))})
	}
	if !*serve {
		return
	}
	app.OnServe().BindFunc(func(se *core.ServeEvent) error {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		se.Listener = ln
		se.InstallerFunc = nil
		report(map[string]any{"msg": "pocketbase listening", "addr": ln.Addr().String()})
		return se.Next()
	})
	if err := apis.Serve(app, apis.ServeConfig{HttpAddr: "127.0.0.1:0"}); err != nil {
		log.Fatal(err)
	}
}

// define creates the collections and the superuser unless they exist.
func define(app core.App) error {
	if _, err := app.FindCollectionByNameOrId("messages"); err == nil {
		return nil
	}
	public := types.Pointer("")
	messages := core.NewBaseCollection("messages")
	messages.ListRule, messages.ViewRule, messages.CreateRule = public, public, public
	messages.Fields.Add(
		&core.TextField{Name: "channel", Required: true},
		&core.TextField{Name: "sender", Required: true},
		&core.TextField{Name: "senderName"},
		&core.TextField{Name: "content", Max: 4000},
		&core.NumberField{Name: "seq", OnlyInt: true},
		&core.JSONField{Name: "attachments"},
		&core.DateField{Name: "sentAt"},
	)
	messages.AddIndex("idx_messages_channel_seq", true, "channel, seq", "")
	if err := app.Save(messages); err != nil {
		return fmt.Errorf("messages: %w", err)
	}
	reactions := core.NewBaseCollection("reactions")
	reactions.ListRule, reactions.ViewRule, reactions.CreateRule = public, public, public
	reactions.Fields.Add(
		&core.RelationField{Name: "message", CollectionId: messages.Id, MaxSelect: 1, Required: true},
		&core.TextField{Name: "user", Required: true},
		&core.TextField{Name: "emoji", Required: true},
	)
	reactions.AddIndex("idx_reactions_message", false, "message", "")
	if err := app.Save(reactions); err != nil {
		return fmt.Errorf("reactions: %w", err)
	}
	files := core.NewBaseCollection("files")
	files.ListRule, files.ViewRule, files.CreateRule = public, public, public
	files.Fields.Add(&core.FileField{Name: "content", MaxSelect: 1, MaxSize: 1 << 30})
	if err := app.Save(files); err != nil {
		return fmt.Errorf("files: %w", err)
	}
	superusers, err := app.FindCollectionByNameOrId(core.CollectionNameSuperusers)
	if err != nil {
		return err
	}
	su := core.NewRecord(superusers)
	su.SetEmail(superuserEmail)
	su.SetPassword(superuserPassword)
	return app.Save(su)
}

// seedMessages writes n messages to one channel, in transactions of up to
// 80 messages (as Kanri's benchmark batches them), with a reaction on
// every 20th.
func seedMessages(app core.App, n int) error {
	messages, err := app.FindCollectionByNameOrId("messages")
	if err != nil {
		return err
	}
	reactions, err := app.FindCollectionByNameOrId("reactions")
	if err != nil {
		return err
	}
	now := time.Now()
	const chunkSize = 80
	for chunk := 0; chunk < n; chunk += chunkSize {
		err := app.RunInTransaction(func(tx core.App) error {
			for i := chunk; i < min(n, chunk+chunkSize); i++ {
				seq := i + 1
				m := core.NewRecord(messages)
				m.Set("channel", "ch_size")
				m.Set("sender", "usr_owner")
				m.Set("senderName", "owner")
				m.Set("content", fmt.Sprintf("message %d of %d: %s %s %s", seq, n, words[seq%len(words)], words[seq*7%len(words)], words[seq*11%len(words)]))
				m.Set("seq", seq)
				m.Set("attachments", []string{})
				m.Set("sentAt", now.Add(-time.Duration(n-seq)*10*time.Second))
				if err := tx.SaveNoValidate(m); err != nil {
					return err
				}
				if seq%20 == 0 {
					r := core.NewRecord(reactions)
					r.Set("message", m.Id)
					r.Set("user", "usr_owner")
					r.Set("emoji", "👍")
					if err := tx.SaveNoValidate(r); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// seedFiles writes n files of size pseudo-random bytes.
func seedFiles(app core.App, n, size int) error {
	files, err := app.FindCollectionByNameOrId("files")
	if err != nil {
		return err
	}
	rnd := rand.NewChaCha8([32]byte{1})
	for i := range n {
		data := make([]byte, size)
		rnd.Read(data)
		f, err := filesystem.NewFileFromBytes(data, fmt.Sprintf("file-%03d.bin", i))
		if err != nil {
			return err
		}
		r := core.NewRecord(files)
		r.Set("content", f)
		if err := app.Save(r); err != nil {
			return err
		}
	}
	return nil
}

func report(rec map[string]any) {
	b, _ := json.Marshal(rec)
	fmt.Fprintln(os.Stderr, string(b))
}

func sizeOf(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

func treeSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n += sizeOf(path)
		}
		return nil
	})
	return n
}
