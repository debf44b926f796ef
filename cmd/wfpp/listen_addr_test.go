package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestListenAddr: without users the server listens on loopback unless told
// otherwise, and says so loudly when told to listen beyond it.
func TestListenAddr(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr    string
		local   bool
		want    string
		exposed bool
	}{
		{"", true, "127.0.0.1:8080", false},
		{"", false, ":8080", false},
		{":8080", true, ":8080", true},
		{"0.0.0.0:9000", true, "0.0.0.0:9000", true},
		{"10.1.2.3:8080", true, "10.1.2.3:8080", true},
		{"127.0.0.1:0", true, "127.0.0.1:0", false},
		{"[::1]:8080", true, "[::1]:8080", false},
		{"localhost:8080", true, "localhost:8080", false},
		{":8080", false, ":8080", false},
	} {
		got, exposed := listenAddr(tc.addr, tc.local)
		require.Equal(t, tc.want, got, tc.addr)
		require.Equal(t, tc.exposed, exposed, tc.addr)
	}
}
