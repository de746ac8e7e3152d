package netguard_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
	"time"

	"github.com/kanri/kanri/internal/netguard"
)

func TestPublic(t *testing.T) {
	for _, tc := range []struct {
		addr string
		want bool
	}{
		{"93.184.215.14", true},
		{"2606:4700::6810:84e5", true},
		{"127.0.0.1", false},
		{"::1", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"192.168.1.1", false},
		{"169.254.169.254", false}, // the cloud metadata service
		{"fe80::1", false},
		{"fc00::1", false},
		{"100.64.0.1", false}, // carrier-grade NAT
		{"0.0.0.0", false},
		{"224.0.0.1", false},        // multicast
		{"::ffff:127.0.0.1", false}, // IPv4-mapped loopback
		{"64:ff9b::a00:1", false},   // NAT64 of 10.0.0.1
		{"2002:a00:1::1", false},    // 6to4 of 10.0.0.1
		{"::a00:1", false},          // IPv4-compatible
		{"198.18.0.1", false},       // benchmarking
		{"240.0.0.1", false},        // reserved
		{"fec0::1", false},          // site-local
		{"255.255.255.255", false},  // broadcast
		{"2001:db8::1", true},       // documentation, yet routable in the checks' eyes
		{"8.8.8.8", true},
	} {
		if got := netguard.Public(netip.MustParseAddr(tc.addr)); got != tc.want {
			t.Errorf("Public(%s) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}

func TestNoPrivateAddressesUnlessAllowed(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/away" {
			http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	guarded := netguard.NewClient(false, 5*time.Second)
	for _, u := range []string{srv.URL, "http://169.254.169.254/", "http://10.0.0.1/", "http://[::1]:1/", "http://100.64.0.1/", "http://localhost:1/"} {
		res, err := guarded.Get(u)
		if err == nil {
			res.Body.Close()
		}
		if !errors.Is(err, netguard.ErrPrivateAddress) {
			t.Errorf("GET %s: %v, want ErrPrivateAddress", u, err)
		}
	}
	open := netguard.NewClient(true, 5*time.Second)
	res, err := open.Get(srv.URL)
	if err != nil {
		t.Fatalf("allowed private addresses: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNoContent {
		t.Errorf("got %d, want 204", res.StatusCode)
	}
	res, err = open.Get(srv.URL + "/away")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusFound {
		t.Errorf("a redirect: got %d, want it answered, not followed", res.StatusCode)
	}
}
