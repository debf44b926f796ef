package api

import (
	"net/url"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
)

// cacheEntryView is one step cache entry as the API shows it: the value
// only as a preview, since a result may be large or hold data the list's
// readers need not see whole.
type cacheEntryView struct {
	Key          string    `json:"key"`
	Scope        string    `json:"scope"`
	Definition   string    `json:"definition"`
	JobType      string    `json:"jobType"`
	Created      time.Time `json:"created"`
	Expires      time.Time `json:"expires"`
	Size         int       `json:"size"`         // of the value, in bytes of JSON
	ValuePreview string    `json:"valuePreview"` // its first cacheValuePreview bytes
}

// cacheValuePreview is how much of an entry's value the list shows.
const cacheValuePreview = 200

func viewOfCacheEntry(e engine.CacheEntry) cacheEntryView {
	preview := e.Value
	if len(preview) > cacheValuePreview {
		preview = preview[:cacheValuePreview]
		for len(preview) > 0 && !utf8.Valid(preview) { // do not cut a character in two
			preview = preview[:len(preview)-1]
		}
	}
	return cacheEntryView{
		Key: e.Key, Scope: e.Scope, Definition: e.Definition, JobType: e.JobType,
		Created: e.Created, Expires: e.Expires, Size: len(e.Value), ValuePreview: string(preview),
	}
}

// listCache is GET /api/v1/cache?definition=&prefix=&limit=&cursor=: the
// live entries of the step cache, by key.
func (s *Service) listCache(c *fiber.Ctx) error {
	if err := onlyParams(c, "definition", "prefix", "cursor", "limit"); err != nil {
		return err
	}
	limit, err := limitOf(c)
	if err != nil {
		return err
	}
	cursor, err := cursorIn(c)
	if err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	all, err := s.eng.CacheEntries(ctx, engine.CacheFilter{Definition: c.Query("definition"), Prefix: c.Query("prefix")})
	if err != nil {
		return err
	}
	page, next := paginate(all, cursor, limit, func(e engine.CacheEntry) string { return e.Key }, ascending)
	items := make([]cacheEntryView, len(page))
	for i, e := range page {
		items[i] = viewOfCacheEntry(e)
	}
	return c.JSON(newListPage(items, next))
}

// deleteCacheEntry is DELETE /api/v1/cache/:key (the key URL-encoded).
func (s *Service) deleteCacheEntry(c *fiber.Ctx) error {
	key, err := url.PathUnescape(c.Params("key"))
	if err != nil {
		return BadRequest("cache key %q is not URL-encoded properly: %v", c.Params("key"), err)
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	if err := s.eng.DeleteCacheEntry(ctx, key); err != nil {
		return err
	}
	s.log.Info("cache entry deleted", "key", key, "user", ActorOf(c).Name, "correlation_id", CorrelationID(c))
	return c.SendStatus(fiber.StatusNoContent)
}

// invalidateCacheBody selects the entries to invalidate; both empty
// selects every entry.
type invalidateCacheBody struct {
	Definition string `json:"definition"`
	Prefix     string `json:"prefix"`
}

// invalidateCache is POST /api/v1/cache/invalidate {definition?, prefix?}:
// removes the entries selected and says how many.
func (s *Service) invalidateCache(c *fiber.Ctx) error {
	var b invalidateCacheBody
	if err := Decode(c, &b); err != nil {
		return err
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	n, err := s.eng.InvalidateCache(ctx, engine.CacheFilter{Definition: b.Definition, Prefix: b.Prefix})
	if err != nil {
		return err
	}
	s.log.Info("cache invalidated", "definition", b.Definition, "prefix", b.Prefix, "removed", n,
		"user", ActorOf(c).Name, "correlation_id", CorrelationID(c))
	return c.JSON(fiber.Map{"removed": n})
}
