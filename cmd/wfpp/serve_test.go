package main

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestServeRefusesBadIdentity: a server with a weak JWT secret does not
// start (and never falls back to the local profile, which would let anyone in).
func TestServeRefusesBadIdentity(t *testing.T) {
	t.Setenv("WFPP_DATA_DIR", t.TempDir())
	t.Setenv("WFPP_MONGO_URI", "")
	t.Setenv("WFPP_JWT_SECRET", "too-short")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, &stdout, &stderr)
	require.Equal(t, exitUsage, code, "stdout: %s", stdout.String())
	require.Contains(t, stderr.String(), "JWTSecret is shorter than 32 bytes")
}

// TestServeHelpListsEveryVariable: `wfpp serve -h` names every WFPP_
// variable the server's code reads (wfpp bench's own are left out).
func TestServeHelpListsEveryVariable(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	require.Equal(t, exitUsage, run(context.Background(), []string{"serve", "-h"}, &out, &out))
	help := out.String()
	read := regexp.MustCompile(`"(WFPP_[A-Z_]+)"`)
	seen := 0
	require.NoError(t, filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "bench" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != "../..":
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, "bench.go"):
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range read.FindAllStringSubmatch(string(src), -1) {
			seen++
			require.Contains(t, help, "  "+m[1]+" ", "%s reads %s: list it in serveEnv", path, m[1])
		}
		return nil
	}))
	require.Greater(t, seen, 8)
}
