package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kanri/kanri/internal/bolt"
)

// hotCopySocket is the name of the Unix socket in the data directory on
// which a server on the embedded store hands copies of its file to
// `kanri backup`. Only the server's own user (and root) can connect: the
// socket's mode is 0600 and, on Linux, the server checks each peer's uid
// (SO_PEERCRED) as well.
const hotCopySocket = "kanri.sock"

// copyBufferSize is the size of the reads and writes of a copy, on both
// ends of the socket: large, so that a copy of a large file makes few
// system calls.
const copyBufferSize = 1 << 20

// hotCopyServer serves consistent copies of the store's file (one read
// transaction each: writers are not blocked) over HTTP on the Unix socket
// hotCopySocket. It serves nothing else.
type hotCopyServer struct {
	st   *bolt.Store
	log  *slog.Logger
	path string
	// allow reports whether a peer of the given uid may take a copy: the
	// server's own user and root (who can read the file anyway).
	allow func(uid int) bool
	// opened, when not nil, is called inside each copy's transaction
	// before its first byte is sent, with the request's context. Tests use
	// it to write meanwhile, or to stop the server.
	opened func(ctx context.Context)

	mu     sync.Mutex
	closed bool
	copies sync.WaitGroup
}

func newHotCopyServer(dir string, st *bolt.Store, log *slog.Logger) *hotCopyServer {
	uid := os.Getuid()
	return &hotCopyServer{
		st:    st,
		log:   log,
		path:  filepath.Join(dir, hotCopySocket),
		allow: func(peer int) bool { return peer == uid || peer == 0 },
	}
}

// hotCopyWorker listens on the hot-copy socket of the data directory dir
// and returns the worker that serves it until shutdown, which closes the
// copies in flight and removes the socket. It listens at once, so that
// the socket is there when the server reports it is ready (should the
// start fail before the workers run, the process exits and the next start
// removes the socket left). A server that cannot listen (the socket's
// path is longer than the system allows, about 100 bytes, or something
// else answers on it) logs a warning and serves without it: `kanri
// backup` then finds the file locked and says so.
func hotCopyWorker(dir string, st *bolt.Store, log *slog.Logger) worker {
	s := newHotCopyServer(dir, st, log)
	ln, err := s.listen()
	if err != nil {
		log.Warn("kanri backup cannot take copies while this server runs: no hot-copy socket", "path", s.path, "err", err)
		return worker{"hot-copy socket", func(context.Context) error { return nil }}
	}
	log.Info("hot-copy socket listening", "path", s.path)
	return worker{"hot-copy socket", func(ctx context.Context) error { return s.serve(ctx, ln) }}
}

// listen removes a socket left by a server that crashed (after checking
// that nothing answers on it) and listens on the socket, mode 0600.
func (s *hotCopyServer) listen() (net.Listener, error) {
	if err := removeStaleSocket(s.path); err != nil {
		return nil, err
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: s.path, Net: "unix"})
	if err != nil {
		return nil, err
	}
	// The socket is created with the umask's mode; until this chmod it is
	// still inside the data directory (0700 when Kanri created it) and,
	// on Linux, behind the peer check.
	if err := os.Chmod(s.path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// removeStaleSocket removes the socket at path if nothing answers on it.
// The store's file lock already ensures that no other server uses this
// data directory; a file that is not a socket is left alone.
func removeStaleSocket(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return fmt.Errorf("%s exists and is not a socket", path)
	}
	c, err := net.DialTimeout("unix", path, 5*time.Second)
	if err == nil {
		c.Close()
		return fmt.Errorf("another process answers on %s", path)
	}
	return os.Remove(path)
}

// serve serves copies on ln until ctx ends, then ends the copies in
// flight (their clients fail and keep no file), waits for them to return
// and removes the socket.
func (s *hotCopyServer) serve(ctx context.Context, ln net.Listener) error {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /copy", s.serveCopy)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ConnContext:       withPeer,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		ln.Close()
		return err
	case <-ctx.Done():
	}
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	srv.Close() // closes ln too, which removes the socket
	<-errc
	s.copies.Wait()
	return nil
}

// serveCopy sends the store's file as one read transaction sees it, with
// its length (Content-Length): a client that receives fewer bytes knows
// its copy is incomplete. Other users' processes are refused (403).
func (s *hotCopyServer) serveCopy(w http.ResponseWriter, r *http.Request) {
	if p, ok := r.Context().Value(peerKey{}).(peer); !ok || p.err != nil || (p.uid >= 0 && !s.allow(p.uid)) {
		s.log.Warn("hot-copy socket: refused a copy to another user, or one whose uid is unknown", "uid", p.uid, "err", p.err)
		http.Error(w, "copies are only for the user the server runs as (and root)", http.StatusForbidden)
		return
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		http.Error(w, "the server is shutting down", http.StatusServiceUnavailable)
		return
	}
	s.copies.Add(1)
	s.mu.Unlock()
	defer s.copies.Done()
	start := time.Now()
	var bw *bufio.Writer
	n, err := s.st.Copy(func(size int64) (io.Writer, error) {
		if s.opened != nil {
			s.opened(r.Context())
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		w.WriteHeader(http.StatusOK)
		bw = bufio.NewWriterSize(w, copyBufferSize)
		return bw, nil
	})
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		s.log.Warn("copy for kanri backup failed", "bytes", n, "err", err)
		panic(http.ErrAbortHandler) // end the connection: the client sees a short copy
	}
	s.log.Info("copy for kanri backup sent", "bytes", n, "duration", time.Since(start).Round(time.Millisecond))
}

// peerKey is the context key of a connection's peer (a peer value).
type peerKey struct{}

// peer is the uid of the process at the other end of a connection, -1
// where the system does not tell it, or why it is unknown.
type peer struct {
	uid int
	err error
}

// withPeer records the uid of c's peer in ctx for serveCopy.
func withPeer(ctx context.Context, c net.Conn) context.Context {
	p := peer{uid: -1, err: errors.New("not a Unix socket")}
	if uc, ok := c.(*net.UnixConn); ok {
		p.uid, p.err = peerUID(uc)
	}
	return context.WithValue(ctx, peerKey{}, p)
}

// runHotCopy is `kanri backup -out FILE [-force] [server flags]`: it
// writes a consistent copy of the embedded store's file to FILE. It
// reads the server's configuration (flags, else KANRI_* variables, else
// defaults) to find the data directory: when a server runs there, the
// copy comes from it through the hot-copy socket while it goes on
// serving; else from the file itself. The copy is written to a temporary
// file beside FILE, synced, checked and renamed to FILE, so FILE is never
// partial; an existing FILE is replaced only with -force.
func runHotCopy(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	out, force, rest, err := hotCopyFlags(args, stdout)
	if err != nil {
		return err
	}
	cfg, err := parseConfig(rest, getenv, stderr)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if cfg.Store == StoreCosmos {
		return errors.New("backup: the store is Cosmos DB (KANRI_STORE=cosmos), which kanri backup does not copy: it copies only the embedded store's file. Use Cosmos DB's own backups (periodic or continuous, set on the account)")
	}
	dst, err := newCopyDest(ctx, out, force)
	if err != nil {
		return err
	}
	start := time.Now()
	from, n, err := hotCopyFrom(ctx, cfg.DataDir, dst)
	if err == nil {
		err = dst.commit()
	}
	if err != nil {
		dst.abort()
		return err
	}
	fmt.Fprintf(stdout, "kanri backup: %s: %d bytes (%.1f MiB) copied from %s in %v\n",
		dst.path, n, float64(n)/(1<<20), from, time.Since(start).Round(time.Millisecond))
	return nil
}

// hotCopyFlags takes kanri backup's own flags (-out, -force, -h) out of
// args and returns the rest, the server's settings, for parseConfig.
// Every server setting takes a value, so a setting without "=" takes the
// next argument with it, as the flag package would.
func hotCopyFlags(args []string, stdout io.Writer) (out string, force bool, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "-" || a == "--" || !strings.HasPrefix(a, "-") {
			rest = append(rest, args[i:]...) // parseConfig reports them
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		switch name {
		case "out":
			if !hasValue {
				if i+1 == len(args) {
					return "", false, nil, errors.New("backup: -out needs a file name")
				}
				i++
				value = args[i]
			}
			out = value
		case "force":
			force = true
			if hasValue {
				if force, err = strconv.ParseBool(value); err != nil {
					return "", false, nil, fmt.Errorf("backup: -force=%s is not true or false", value)
				}
			}
		case "h", "help":
			fmt.Fprint(stdout, hotCopyHelp)
			return "", false, nil, flag.ErrHelp
		default:
			rest = append(rest, a)
			if !hasValue && i+1 < len(args) {
				i++
				rest = append(rest, args[i])
			}
		}
	}
	if out == "" {
		return "", false, nil, errors.New("backup: -out FILE is required (see kanri backup -h)")
	}
	return out, force, rest, nil
}

const hotCopyHelp = `Usage: kanri backup -out FILE [-force] [server flags]

Writes a consistent copy of the embedded store's file (kanri.db) to FILE.
It reads the server's configuration (the same flags and KANRI_*
variables; see kanri --help) to find the data directory. When a server
runs there, the copy comes from it through the socket kanri.sock in the
data directory, while it goes on serving; else from the file itself.
Only the server's user (and root) can take a copy.

  -out FILE   where to write the copy (mode 0600); never left partial
  -force      replace FILE if it exists

The copy holds the documents only: not the file contents (the blob store)
nor session.key. Start from it with the file as kanri.db in the data
directory, after kanri check.
`

// errNoServer means that no server answers on the hot-copy socket.
var errNoServer = errors.New("no server answers")

// hotCopyFrom writes the copy to dst: from the server running on the data
// directory dir, else from the file itself. It returns where the copy
// came from.
func hotCopyFrom(ctx context.Context, dir string, dst *copyDest) (string, int64, error) {
	sock := filepath.Join(dir, hotCopySocket)
	n, err := copyFromServer(ctx, sock, dst)
	if err == nil {
		return "the running server (" + sock + ")", n, nil
	}
	if !errors.Is(err, errNoServer) {
		return "", n, err
	}
	n, err = bolt.CopyFile(dir, dst.open)
	if errors.Is(err, bolt.ErrInUse) {
		return "", n, fmt.Errorf("backup: the store's file is in use, but no server answers on %s (the server's log says why: \"no hot-copy socket\"): %w", sock, err)
	}
	if err != nil {
		return "", n, fmt.Errorf("backup: %w", err)
	}
	return "the store's file " + filepath.Join(dir, bolt.FileName) + " (no server running)", n, nil
}

// copyFromServer asks the server on the socket sock for a copy and writes
// it to dst. It returns errNoServer when the socket is missing or nobody
// listens on it (a server that crashed).
func copyFromServer(ctx context.Context, sock string, dst *copyDest) (int64, error) {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", sock)
		},
		DisableKeepAlives: true,
	}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://kanri/copy", nil)
	if err != nil {
		return 0, err
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	var op *net.OpError
	switch {
	case err == nil:
	case errors.As(err, &op) && op.Op == "dial" && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED)):
		return 0, errNoServer
	case errors.Is(err, fs.ErrPermission):
		return 0, fmt.Errorf("backup: %s: permission denied; run kanri backup as the user the server runs as: %w", sock, err)
	default:
		return 0, fmt.Errorf("backup: ask the server on %s: %w", sock, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return 0, fmt.Errorf("backup: the server on %s answered %s: %s", sock, resp.Status, strings.TrimSpace(string(msg)))
	}
	if resp.ContentLength < 0 {
		return 0, fmt.Errorf("backup: the server on %s did not say the copy's length", sock)
	}
	w, err := dst.open(resp.ContentLength)
	if err != nil {
		return 0, err
	}
	n, err := io.CopyBuffer(w, resp.Body, make([]byte, copyBufferSize))
	if err == nil && n != resp.ContentLength {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return n, fmt.Errorf("backup: the copy from the server ended after %d of %d bytes: %w", n, resp.ContentLength, err)
	}
	return n, nil
}

// copyDest is where kanri backup writes: a temporary file beside the
// destination, renamed to it once whole.
type copyDest struct {
	ctx   context.Context
	path  string
	force bool
	tmp   *os.File
}

// newCopyDest checks that the copy may be written to path: it must not
// exist unless force is set.
func newCopyDest(ctx context.Context, path string, force bool) (*copyDest, error) {
	d := &copyDest{ctx: ctx, path: path, force: force}
	if err := d.checkFree(); err != nil {
		return nil, err
	}
	return d, nil
}

// checkFree fails when the destination exists and force is not set.
func (d *copyDest) checkFree() error {
	if _, err := os.Lstat(d.path); err == nil && !d.force {
		return fmt.Errorf("backup: %s exists; choose another name, or add -force to replace it", d.path)
	}
	return nil
}

// open creates the temporary file (mode 0600: the copy holds every
// tenant's data) and returns a writer to it that stops when the context
// ends. size is the copy's length.
func (d *copyDest) open(size int64) (io.Writer, error) {
	f, err := os.CreateTemp(filepath.Dir(d.path), "."+filepath.Base(d.path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	d.tmp = f
	return ctxWriter{d.ctx, f}, nil
}

// commit syncs the temporary file, checks that it is a whole store file
// and renames it to the destination.
func (d *copyDest) commit() error {
	if d.tmp == nil {
		return errors.New("backup: nothing was copied")
	}
	tmp := d.tmp.Name()
	if err := d.tmp.Sync(); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := d.tmp.Close(); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	d.tmp = nil
	if err := bolt.VerifyCopy(tmp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("backup: %w", err)
	}
	if err := d.checkFree(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, d.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("backup: %w", err)
	}
	return syncDir(filepath.Dir(d.path))
}

// abort removes the temporary file, if any.
func (d *copyDest) abort() {
	if d.tmp != nil {
		d.tmp.Close()
		os.Remove(d.tmp.Name())
		d.tmp = nil
	}
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		return fmt.Errorf("backup: sync %s: %w", dir, err)
	}
	return nil
}

// ctxWriter writes to w until ctx ends (kanri backup is interrupted).
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}
