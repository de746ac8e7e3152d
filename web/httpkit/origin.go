package httpkit

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/labstack/echo/v4"
)

// Origin says where the server is reached: the address its users know it
// by, when configured, and the reverse proxies whose forwarded headers it
// believes. Without configuration it is the request's own scheme and Host,
// and forwarded headers are believed from no one: anybody can send them.
type Origin struct {
	// public is the configured address of the server
	// (https://kanri.example.jp, no trailing slash), or "".
	public string
	// proxies are the addresses of the trusted reverse proxies.
	proxies []netip.Prefix
}

// NewOrigin returns the origin of a server reached at public (none:
// the request's own scheme and host) behind proxies.
func NewOrigin(public string, proxies []netip.Prefix) Origin {
	return Origin{public: strings.TrimRight(public, "/"), proxies: proxies}
}

// Forwarded headers believed from a trusted proxy.
const (
	hdrForwardedProto = "X-Forwarded-Proto"
	hdrForwardedHost  = "X-Forwarded-Host"
)

// viaProxy reports whether the request's connection comes from a trusted
// proxy.
func (o Origin) viaProxy(r *http.Request) bool {
	if len(o.proxies) == 0 {
		return false
	}
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	addr := ap.Addr().Unmap()
	for _, p := range o.proxies {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// forwarded returns the first value of a forwarded header of a request
// from a trusted proxy (the one the client's side wrote), or "".
func (o Origin) forwarded(r *http.Request, name string) string {
	if !o.viaProxy(r) {
		return ""
	}
	v, _, _ := strings.Cut(r.Header.Get(name), ",")
	return strings.TrimSpace(v)
}

// Scheme returns the scheme the request reached the server with (Echo's
// SchemeExtractor, which the cookies' Secure flag and HSTS read): https
// over TLS; else the X-Forwarded-Proto of a trusted proxy; else the
// configured address's scheme; else http.
func (o Origin) Scheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	if p := strings.ToLower(o.forwarded(r, hdrForwardedProto)); p == "http" || p == "https" {
		return p
	}
	if s, _, ok := strings.Cut(o.public, "://"); ok {
		return s
	}
	return "http"
}

// host returns the host (and port) the request was sent to: the
// X-Forwarded-Host of a trusted proxy, else the request's Host.
func (o Origin) host(r *http.Request) string {
	if h := o.forwarded(r, hdrForwardedHost); h != "" {
		return h
	}
	return r.Host
}

// Base returns the absolute address of the server for the request
// ("https://kanri.acme.co.jp"): the configured one, else the request's
// scheme and host.
func (o Origin) Base(r *http.Request) string {
	if o.public != "" {
		return o.public
	}
	return o.Scheme(r) + "://" + o.host(r)
}

// Vary returns the request headers the base address depends on, for the
// Vary header of an answer that contains it ("" when none).
func (o Origin) Vary() string {
	switch {
	case o.public != "":
		return ""
	case len(o.proxies) > 0:
		return "Host, " + hdrForwardedProto + ", " + hdrForwardedHost
	}
	return "Host"
}

// IPExtractor returns how the client's address is read: the connection's,
// or through X-Forwarded-For for a request from a trusted proxy (the
// nearest address that is not a trusted proxy's).
func (o Origin) IPExtractor() echo.IPExtractor {
	if len(o.proxies) == 0 {
		return echo.ExtractIPDirect()
	}
	opts := []echo.TrustOption{echo.TrustLoopback(false), echo.TrustLinkLocal(false), echo.TrustPrivateNet(false)}
	for _, p := range o.proxies {
		opts = append(opts, echo.TrustIPRange(&net.IPNet{IP: p.Addr().AsSlice(), Mask: net.CIDRMask(p.Bits(), p.Addr().BitLen())}))
	}
	return echo.ExtractIPFromXFFHeader(opts...)
}

// KeyBase is the context key of the request's base address (origin.base).
const KeyBase = "base"

// BaseURL returns the absolute address of the running server as the
// request's users reach it ("https://kanri.acme.co.jp"): the configured
// public address, else the request's scheme and host (forwarded headers
// believed from trusted proxies only).
func BaseURL(c echo.Context) string {
	if b, ok := c.Get(KeyBase).(string); ok {
		return b
	}
	return Origin{}.Base(c.Request())
}
