package bench

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkUpgradeStart measures the start of the real binary on the data
// of an earlier version: 100 tenants × 1,000 users written without e-mail
// reservations or membership records (seedHTTP writes users as an earlier
// version did). It reports how long the first start takes until /healthz
// answers, while it upgrades every tenant, and the process's peak RSS,
// with, at that moment, its anonymous memory (the Go heap, which the
// upgrade's paging bounds) apart from the pages of the data file that the
// embedded store maps (the file is read whole, and the kernel may take
// those pages back); then the same for a second, normal start. KANRI_BENCH_BIN names a
// binary to start instead of building cmd/kanri; KANRI_EARLIER_DATA names
// a directory to keep a copy of the earlier data in (for /usr/bin/time).
//
//	go test ./internal/bench -run '^$' -bench UpgradeStart -benchtime 1x
func BenchmarkUpgradeStart(b *testing.B) {
	dir := b.TempDir()
	seedHTTP(b, dir)
	if keep := os.Getenv("KANRI_EARLIER_DATA"); keep != "" {
		if err := os.MkdirAll(keep, 0o700); err != nil {
			b.Fatal(err)
		}
		if out, err := exec.Command("cp", filepath.Join(dir, "kanri.db"), keep).CombinedOutput(); err != nil {
			b.Fatalf("cp: %v %s", err, out)
		}
	}
	bin := os.Getenv("KANRI_BENCH_BIN")
	if bin == "" {
		bin = filepath.Join(b.TempDir(), "kanri")
		if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/kanri").CombinedOutput(); err != nil {
			b.Fatalf("go build: %v\n%s", err, out)
		}
	}
	for _, run := range []string{"Upgrade", "Normal"} {
		b.Run(run, func(b *testing.B) {
			for b.Loop() {
				took, mem := timeStart(b, bin, dir)
				b.ReportMetric(took.Seconds(), "s_to_healthz")
				b.ReportMetric(float64(mem["VmHWM"])/1024, "peak_rss_MB")
				b.ReportMetric(float64(mem["RssAnon"])/1024, "anon_MB")
				b.ReportMetric(float64(mem["RssFile"])/1024, "file_MB")
				b.ReportMetric(0, "ns/op")
			}
		})
	}
}

// timeStart starts the binary on dir and returns how long it took until
// /healthz answered and its memory then (KiB, by the names of
// /proc/pid/status: VmHWM is the peak resident set).
func timeStart(b *testing.B, bin, dir string) (time.Duration, map[string]int) {
	start := time.Now()
	srv := exec.Command(bin, "-addr", "127.0.0.1:0", "-data-dir", dir, "-bcrypt-cost", "4", "-health-interval", "0", "-domain-recheck-interval", "0")
	stderr, _ := srv.StderrPipe()
	if err := srv.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	addr := ""
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		var rec struct{ Msg, Addr string }
		if json.Unmarshal(lines.Bytes(), &rec) == nil && rec.Msg == "kanri listening" {
			addr = rec.Addr
			break
		}
	}
	if addr == "" {
		b.Fatal("the server did not start")
	}
	go func() {
		for lines.Scan() {
		}
	}()
	for {
		resp, err := http.Get("http://" + addr + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		time.Sleep(5 * time.Millisecond) // polling a real process, not a test's timing
	}
	took := time.Since(start)
	status, err := os.ReadFile("/proc/" + strconv.Itoa(srv.Process.Pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	mem := map[string]int{}
	for _, line := range strings.Split(string(status), "\n") {
		if name, v, ok := strings.Cut(line, ":"); ok && strings.HasSuffix(v, " kB") {
			mem[name], _ = strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(v, " kB")))
		}
	}
	return took, mem
}
