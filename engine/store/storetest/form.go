package storetest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/workflowpp/wfpp/engine"
)

func form(id, checksum, tag string) engine.FormRecord {
	return engine.FormRecord{
		FormID: id, Name: id, Checksum: checksum, VersionTag: tag,
		Schema: []byte(`{"id":"` + id + `","components":[]}`), Deployed: base, Deployer: "dora",
	}
}

func testForms(t *testing.T, s engine.Store) {
	c := ctx(t)
	_, err := s.FormVersions(c, "invoice")
	require.ErrorIs(t, err, engine.ErrNotFound)

	v1, created, err := s.SaveForm(c, form("invoice", "a", "v1.0"))
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, 1, v1.Version)
	v2, created, err := s.SaveForm(c, form("invoice", "b", ""))
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, 2, v2.Version)
	again, created, err := s.SaveForm(c, form("invoice", "b", ""))
	require.NoError(t, err)
	require.False(t, created, "the same content is the same version")
	require.Equal(t, 2, again.Version)
	_, _, err = s.SaveForm(c, form("approval", "x", ""))
	require.NoError(t, err)

	versions, err := s.FormVersions(c, "invoice")
	require.NoError(t, err)
	require.Len(t, versions, 2)
	require.Equal(t, 2, versions[0].Version, "newest first")
	require.Equal(t, "v1.0", versions[1].VersionTag)
	require.JSONEq(t, `{"id":"invoice","components":[]}`, string(versions[1].Schema))

	all, err := s.Forms(c)
	require.NoError(t, err)
	require.Len(t, all, 2)
	require.Equal(t, "approval", all[0].FormID)
	require.Equal(t, 2, all[1].Version, "the latest version of each form")
}
