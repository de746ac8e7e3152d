// Package netguard makes the HTTP clients with which Kanri calls addresses
// its tenants type (their identity providers' issuers, their webhook
// endpoints): the server must not become their way into its own network.
package netguard

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrPrivateAddress is the error of a connection to an address a tenant's
// URL may not lead to.
var ErrPrivateAddress = errors.New("the address is loopback, private, link-local or otherwise not public")

// NewClient returns an HTTP client whose requests end after timeout.
// Unless allowPrivate (for local testing), connections to loopback,
// private, link-local (the cloud metadata service), shared and unspecified
// addresses are refused with ErrPrivateAddress, checked on the address
// dialled, after name resolution, so that a name that resolves to one
// cannot pass, however often its records change. It uses no proxy and
// follows no redirect: a redirect could lead where the caller did not
// look.
func NewClient(allowPrivate bool, timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if !allowPrivate {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !Public(ap.Addr()) {
				return ErrPrivateAddress
			}
			return nil
		}
	}
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DialContext:           d.DialContext,
			TLSHandshakeTimeout:   5 * time.Second,
			ResponseHeaderTimeout: 10 * time.Second,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       90 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// special are the ranges that reach no public host, or may reach a
// private one by translation: "this network", carrier-grade NAT,
// benchmarking, reserved, NAT64, 6to4, site-local and IPv4-compatible
// IPv6.
var special = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2002::/16"),
	netip.MustParsePrefix("fec0::/10"),
	netip.MustParsePrefix("::/96"),
}

// Public reports whether a is a public address a tenant's URL may lead to.
func Public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || !a.IsGlobalUnicast() || a.IsPrivate() {
		return false
	}
	for _, p := range special {
		if p.Contains(a) {
			return false
		}
	}
	return true
}
