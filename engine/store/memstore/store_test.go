package memstore_test

import (
	"testing"

	"github.com/workflowpp/wfpp/engine"
	"github.com/workflowpp/wfpp/engine/store/memstore"
	"github.com/workflowpp/wfpp/engine/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) engine.Store { return memstore.New() })
}

// TestConformanceParked runs the suite with every waiting instance parked at
// once, so that each read and write meets parked instances and tasks.
func TestConformanceParked(t *testing.T) {
	storetest.Run(t, func(t *testing.T) engine.Store { return memstore.New(memstore.WithParking(0)) })
}

func TestLeaseConformance(t *testing.T) {
	storetest.RunLeases(t, func(t *testing.T) storetest.LeaseStore { return memstore.New() })
}

// TestLeaseConformanceParked: fences and epochs hold for parked instances.
func TestLeaseConformanceParked(t *testing.T) {
	storetest.RunLeases(t, func(t *testing.T) storetest.LeaseStore { return memstore.New(memstore.WithParking(0)) })
}

func TestChangeDigestConformance(t *testing.T) {
	t.Parallel()
	storetest.ChangeDigests(t, memstore.New())
}
