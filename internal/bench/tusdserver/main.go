// Command tusdserver serves tusd 2's handler over its file store, for the
// file transfer benchmark (internal/bench, BenchmarkFileTransfer), which
// measures Kanri's uploads and downloads side by side with it: the peer
// a user would pick for resumable uploads alone. It logs
// {"msg":"tusd listening","addr":…} on stderr once it accepts.
package main

import (
	"encoding/json"
	"flag"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/tus/tusd/v2/pkg/filelocker"
	"github.com/tus/tusd/v2/pkg/filestore"
	tusd "github.com/tus/tusd/v2/pkg/handler"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "the address to listen on")
	dir := flag.String("dir", "", "the directory of the uploads")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o750); err != nil {
		log.Fatal(err)
	}
	composer := tusd.NewStoreComposer()
	filestore.New(*dir).UseIn(composer)
	filelocker.New(*dir).UseIn(composer)
	h, err := tusd.NewHandler(tusd.Config{BasePath: "/files/", StoreComposer: composer, DisableTermination: true})
	if err != nil {
		log.Fatal(err)
	}
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	line, _ := json.Marshal(map[string]string{"msg": "tusd listening", "addr": l.Addr().String()})
	os.Stderr.Write(append(line, '\n'))
	mux := http.NewServeMux()
	mux.Handle("/files/", http.StripPrefix("/files/", h))
	log.Fatal(http.Serve(l, mux))
}
