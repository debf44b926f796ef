package server

import (
	"net"
	"net/netip"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// clientIP is the address the rate limit counts a request against: the
// peer's, unless the peer is one of Config.TrustedProxies; then the nearest
// address in X-Forwarded-For that is not a trusted proxy. Each proxy appends
// the address it got the request from, so the entries right of that one were
// written by proxies the server trusts and the ones left of it are the
// client's own word: the leftmost entry (Fiber's ProxyHeader) would let a
// client pick a fresh bucket per request.
//
// Only the rate limit uses it: whatever trusts loopback (the cluster's
// internal routes without a secret) looks at the peer itself, which no
// header can change.
func (s *Server) clientIP(c *fiber.Ctx) string {
	peer := addrOf(c.Context().RemoteIP())
	if !s.trustedProxy(peer) {
		return peer.String()
	}
	client := peer
	hops := forwardedFor(c)
	for i := len(hops) - 1; i >= 0; i-- {
		hop, ok := parseHop(hops[i])
		if !ok {
			break // nothing left of an entry a trusted proxy did not write can be believed
		}
		client = hop
		if !s.trustedProxy(hop) {
			break
		}
	}
	return client.String()
}

func (s *Server) trustedProxy(ip netip.Addr) bool {
	return slices.ContainsFunc(s.cfg.TrustedProxies, func(p netip.Prefix) bool { return p.Contains(ip) })
}

// forwardedFor lists the X-Forwarded-For entries in order, across every
// header line (some proxies add a line instead of appending to the last).
func forwardedFor(c *fiber.Ctx) []string {
	var hops []string
	for _, line := range c.Request().Header.PeekAll(fiber.HeaderXForwardedFor) {
		hops = append(hops, strings.Split(string(line), ",")...)
	}
	return hops
}

// parseHop reads one X-Forwarded-For entry: an address, some proxies add a
// port.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if ip, err := netip.ParseAddr(s); err == nil {
		return ip.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

func addrOf(ip net.IP) netip.Addr {
	a, _ := netip.AddrFromSlice(ip)
	return a.Unmap()
}
