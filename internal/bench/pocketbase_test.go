package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
)

// PocketBase, the peer a user would pick for a small self-hosted backend,
// runs beside Kanri in the store size, backup and fan-out benchmarks:
// internal/bench/pocketbase, its own module (PocketBase v0.39 as a
// library), defines the same data and seeds it.

// buildPocketBase builds internal/bench/pocketbase into the benchmark's
// temporary directory.
func buildPocketBase(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "pocketbase")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Dir = "pocketbase"
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build internal/bench/pocketbase: %v\n%s", err, out)
	}
	return bin
}

// pocketBaseSeeded is what the peer reports once it has written its data:
// the bytes of its database (data.db and its write-ahead log, checkpointed)
// and of its stored files.
type pocketBaseSeeded struct {
	DataBytes    int64
	StorageBytes int64
}

// seedPocketBase runs the peer over dir with args (its -messages, -files,
// -search flags) until it has written them, and returns what it reports.
func seedPocketBase(b *testing.B, bin, dir string, args ...string) pocketBaseSeeded {
	b.Helper()
	out, err := exec.Command(bin, append([]string{"-dir", dir}, args...)...).CombinedOutput()
	if err != nil {
		b.Fatalf("pocketbase %v: %v\n%s", args, err, out)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var rec struct {
			Msg string
			pocketBaseSeeded
		}
		if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Msg == "pocketbase seeded" {
			return rec.pocketBaseSeeded
		}
	}
	b.Fatalf("pocketbase %v reported nothing:\n%s", args, out)
	return pocketBaseSeeded{}
}

// startPocketBase serves the peer over dir (seeded before, or empty)
// until the benchmark ends.
func startPocketBase(b *testing.B, bin, dir string) *server {
	b.Helper()
	return runServer(b, exec.Command(bin, "-dir", dir, "-serve"), "pocketbase listening")
}

// Its superuser (internal/bench/pocketbase).
const (
	pocketBaseEmail    = "bench@example.com"
	pocketBasePassword = "benchmark-password"
)
