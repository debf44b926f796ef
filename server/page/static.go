package page

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/server/api"
	"github.com/workflowpp/wfpp/static"
)

// Cache lifetimes of static files. Vendored bundles change only with a new
// build; the app's own modules import each other without a version in the
// URL, so browsers revalidate them (cheap: a 304 by ETag).
const (
	staticVendorMaxAge = "public, max-age=604800"
	staticOwnCache     = "no-cache"
)

// staticFile is one embedded file with its ETag and, made on first request,
// its gzipped body.
type staticFile struct {
	body  []byte
	etag  string
	ctype string
	once  sync.Once
	gz    []byte
}

func (f *staticFile) gzipped() []byte {
	f.once.Do(func() {
		var b bytes.Buffer
		w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		_, _ = w.Write(f.body)
		_ = w.Close()
		if b.Len() < len(f.body) {
			f.gz = b.Bytes()
		}
	})
	return f.gz
}

// staticFiles serves the embedded files under /static with ETags, cache
// headers and gzip for clients that accept it.
type staticFiles struct {
	files map[string]*staticFile
}

func newStaticFiles(fsys fs.FS) (*staticFiles, error) {
	sf := &staticFiles{files: map[string]*staticFile{}}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".go") {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		ctype := mime.TypeByExtension(path.Ext(p))
		switch path.Ext(p) {
		case ".js", ".mjs":
			ctype = "text/javascript; charset=utf-8"
		case ".css":
			ctype = "text/css; charset=utf-8"
		case ".md", ".txt":
			ctype = "text/plain; charset=utf-8"
		}
		if ctype == "" {
			ctype = "application/octet-stream"
		}
		sf.files[p] = &staticFile{body: b, etag: `"` + hex.EncodeToString(sum[:8]) + `"`, ctype: ctype}
		return nil
	})
	return sf, err
}

func (sf *staticFiles) serve(c *fiber.Ctx) error {
	p := strings.TrimPrefix(c.Params("*"), "/")
	f, ok := sf.files[p]
	if !ok {
		return &api.Error{Status: http.StatusNotFound, Code: "not_found", Message: "no static file " + p}
	}
	if strings.HasPrefix(p, "vendor/") {
		c.Set(fiber.HeaderCacheControl, staticVendorMaxAge)
	} else {
		c.Set(fiber.HeaderCacheControl, staticOwnCache)
	}
	c.Set(fiber.HeaderETag, f.etag)
	c.Set(fiber.HeaderVary, fiber.HeaderAcceptEncoding)
	c.Set("X-Content-Type-Options", "nosniff")
	if inm := c.Get(fiber.HeaderIfNoneMatch); inm != "" && strings.Contains(inm, f.etag) {
		return c.SendStatus(http.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, f.ctype)
	if strings.Contains(c.Get(fiber.HeaderAcceptEncoding), "gzip") {
		if gz := f.gzipped(); gz != nil {
			c.Set(fiber.HeaderContentEncoding, "gzip")
			return c.Send(gz)
		}
	}
	return c.Send(f.body)
}

var staticFS = sync.OnceValues(func() (*staticFiles, error) { return newStaticFiles(static.FS) })
