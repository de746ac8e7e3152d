package sso

import (
	"errors"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// errPrivateAddress is the error of a connection to an address a tenant's
// provider may not be at.
var errPrivateAddress = errors.New("the provider's address is loopback, private, link-local or otherwise not public")

// NewClient returns the HTTP client that reaches the tenants' providers.
// A tenant's administrator types the issuer URL, so the server must not
// become their way into its own network: unless allowPrivate (for local
// testing), connections to loopback, private, link-local (the cloud
// metadata service), shared and unspecified addresses are refused, checked
// on the address dialled, after name resolution, so that a name that
// resolves to one cannot pass.
func NewClient(allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if !allowPrivate {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !public(ap.Addr()) {
				return errPrivateAddress
			}
			return nil
		}
	}
	return &http.Client{
		Timeout: 15 * time.Second,
		Transport: &http.Transport{
			DialContext:           d.DialContext,
			TLSHandshakeTimeout:   5 * time.Second,
			ResponseHeaderTimeout: 10 * time.Second,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       90 * time.Second,
		},
		// A provider's discovery, keys and token answer directly; a
		// redirect is not followed into an address the check would not
		// see the purpose of.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// special are the ranges that reach no public provider, or may reach a
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

// public reports whether a is an address a provider may be at.
func public(a netip.Addr) bool {
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
