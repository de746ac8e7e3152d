// Package dnstest runs a real DNS server on 127.0.0.1 for tests, serving
// the TXT records a test sets, so that domain verification is tested
// against DNS as it is on the wire.
package dnstest

import (
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// Server is a real DNS server on 127.0.0.1 serving the TXT records a
// test sets. Names it was told to drop get no answer at all (a timeout).
type Server struct {
	Addr string
	mu   sync.Mutex
	txt  map[string][]string
	drop map[string]bool
}

// Start starts a server that stops when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Addr: pc.LocalAddr().String(), txt: map[string][]string{}, drop: map[string]bool{}}
	srv := &dns.Server{PacketConn: pc, Handler: dns.HandlerFunc(s.serve)}
	started := make(chan struct{})
	srv.NotifyStartedFunc = func() { close(started) }
	go srv.ActivateAndServe()
	<-started
	t.Cleanup(func() { srv.Shutdown() })
	return s
}

// Set replaces the TXT values of name (none removes the record).
func (s *Server) Set(name string, values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.txt[dns.Fqdn(strings.ToLower(name))] = values
}

// Drop makes the server leave queries for name unanswered (or answer them
// again, when drop is false), as a server that times out.
func (s *Server) Drop(name string, drop bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.drop[dns.Fqdn(strings.ToLower(name))] = drop
}

func (s *Server) serve(w dns.ResponseWriter, r *dns.Msg) {
	q := r.Question[0]
	name := strings.ToLower(q.Name)
	s.mu.Lock()
	values, drop := s.txt[name], s.drop[name]
	s.mu.Unlock()
	if drop {
		return // no answer: the client times out
	}
	m := new(dns.Msg)
	m.SetReply(r)
	m.Authoritative = true
	if values == nil {
		m.Rcode = dns.RcodeNameError
	}
	if q.Qtype == dns.TypeTXT {
		for _, v := range values {
			m.Answer = append(m.Answer, &dns.TXT{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 60}, Txt: []string{v}})
		}
	}
	w.WriteMsg(m)
}
