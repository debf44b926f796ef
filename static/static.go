// Package static holds the browser files the server serves under /static:
// the vendored bpmn-js and form-js bundles and the pages' own modules and
// styles, embedded so the binary needs nothing beside it.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
)

//go:embed vendor js css
var FS embed.FS

// Version is a short hash of the pages' own modules and styles; pages add it
// to their URLs so a new build is never served from a stale cache.
var Version = version()

func version() string {
	h := sha256.New()
	for _, dir := range []string{"js", "css"} {
		_ = fs.WalkDir(FS, dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := FS.ReadFile(path)
			if err != nil {
				return err
			}
			h.Write([]byte(path))
			h.Write(b)
			return nil
		})
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}
