package page

import (
	"net/url"

	"github.com/gofiber/fiber/v2"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/server/identity"
	"github.com/workflowpp/wfpp/web"
)

// instancesPage is GET /instances.
func (s *Service) instancesPage(c *fiber.Ctx) error {
	d, err := s.instancesData(c)
	if err != nil {
		return err
	}
	if d.Definitions, err = s.definitionKeys(c); err != nil {
		return err
	}
	p := s.layout(c, "Instances", "instances")
	p.Module = "instances.js"
	return renderPage(c, web.InstancesPage(p, d))
}

// instancesFragment is GET /ui/instances: the table alone, for live refresh.
func (s *Service) instancesFragment(c *fiber.Ctx) error {
	d, err := s.instancesData(c)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return renderPage(c, web.InstanceList(d))
}

func (s *Service) instancesData(c *fiber.Ctx) (web.InstancesData, error) {
	d := web.InstancesData{Definition: c.Query("definition"), Status: c.Query("status"), BusinessKey: c.Query("businessKey")}
	f := engine.InstanceFilter{DefinitionKey: d.Definition, BusinessKey: d.BusinessKey, Cursor: c.Query("cursor"), Limit: PageSizeDefault}
	if d.Status != "" {
		f.Status = []engine.Status{engine.Status(d.Status)}
	}
	ctx, cancel := s.ctx(c)
	defer cancel()
	page, next, err := s.eng.Queries().Instances(ctx, f)
	if err != nil {
		return d, err
	}
	u := identity.CurrentUser(c)
	for _, in := range page {
		if ok, err := s.api.MayRead(ctx, u, in); err != nil {
			return d, err
		} else if !ok {
			continue
		}
		open := 0
		for _, i := range in.Incidents {
			if i.Resolved == nil {
				open++
			}
		}
		d.Rows = append(d.Rows, web.InstanceRow{
			ID: in.ID, Definition: in.DefinitionKey, Version: in.Version,
			BusinessKey: in.BusinessKey, Status: string(in.Status), Started: in.Started, Updated: in.Updated, Incidents: open,
		})
	}
	q := url.Values{}
	for k, v := range map[string]string{"definition": d.Definition, "status": d.Status, "businessKey": d.BusinessKey} {
		if v != "" {
			q.Set(k, v)
		}
	}
	d.Pager = pager(c, "/instances", q, next, len(d.Rows))
	return d, nil
}

// monitorPage is GET /instances/:id; the page's module loads the rest.
func (s *Service) monitorPage(c *fiber.Ctx) error {
	ctx, cancel := s.ctx(c)
	defer cancel()
	snap, err := s.api.ReadInstance(ctx, identity.CurrentUser(c), c.Params("id"))
	if err != nil {
		return err
	}
	p := s.layout(c, "Instance "+snap.ID, "instances", "bpmn-js/diagram-js.css", "bpmn-js/bpmn-js.css",
		"bpmn-js/bpmn-font/css/bpmn-embedded.css")
	p.Module = "monitor.js"
	m := web.MonitorData{ID: snap.ID, Definition: snap.DefinitionKey, Version: snap.Version, Status: string(snap.Status)}
	if snap.Parent != nil {
		m.Parent = &web.InstanceLink{ID: snap.Parent.InstanceID, ElementID: snap.Parent.ElementID}
	}
	kids, started, err := s.api.Spawned(ctx, identity.CurrentUser(c), snap)
	if err != nil {
		return err
	}
	for _, k := range kids {
		m.Children = append(m.Children, web.InstanceLink{ID: k.ID, ProcessID: k.ProcessID, ElementID: k.ElementID, Status: string(k.Status)})
	}
	if by := snap.TriggeredBy; by != nil {
		m.TriggeredBy = &web.InstanceLink{ID: by.InstanceID, Definition: by.Definition}
	}
	for _, k := range started {
		m.Triggered = append(m.Triggered, web.InstanceLink{ID: k.ID, Definition: k.Definition, Status: string(k.Status)})
	}
	return renderPage(c, web.MonitorPage(p, m))
}
