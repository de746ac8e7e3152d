package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
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

// pocketBaseSignIn signs the peer's superuser in and returns its token.
func pocketBaseSignIn(b *testing.B, base string) string {
	b.Helper()
	var auth struct{ Token string }
	pocketBaseCall(b, http.MethodPost, base+"/api/collections/_superusers/auth-with-password", "", map[string]string{"identity": pocketBaseEmail, "password": pocketBasePassword}, &auth)
	if auth.Token == "" {
		b.Fatal("pocketbase: no token")
	}
	return auth.Token
}

// pocketBaseCall sends body as JSON to the peer's url (with token, unless
// ""), fails the benchmark unless it answers 2xx, and decodes its answer
// into out unless out is nil.
func pocketBaseCall(b *testing.B, method, url, token string, body, out any) {
	b.Helper()
	data, err := json.Marshal(body)
	if err != nil {
		b.Fatal(err)
	}
	req, err := http.NewRequest(method, url, bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		b.Fatalf("pocketbase %s %s: %s\n%s", method, url, resp.Status, answer)
	}
	if out != nil {
		if err := json.Unmarshal(answer, out); err != nil {
			b.Fatalf("pocketbase %s %s: %v", method, url, err)
		}
	}
}

// cpu returns the CPU time (user and system) the server has used so far
// (/proc/<pid>/stat, in clock ticks of 10 ms).
func (s *server) cpu(b *testing.B) time.Duration {
	b.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command's name, which ends at the last ')':
	// utime and stime are the 14th and 15th of the line.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: %q", s.cmd.Process.Pid, stat)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
