package server_test

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserClusterPage: an operator finds the Cluster page in the
// navigation; on a server that runs alone it says so and lists every
// partition as held here.
func TestBrowserClusterPage(t *testing.T) {
	srv := startLiveServer(t)
	b := newBrowser(t)
	b.run(b.ctx, "the navigation leads to the cluster page",
		chromedp.Navigate(srv.url+"/inbox"),
		waitJS(`document.readyState === 'complete'`),
		js(`document.querySelector('nav.nav a[href="/cluster"]').click()`),
		waitAfterNavigation(`location.pathname === '/cluster' && document.querySelector('nav.nav a.active')?.textContent.trim() === 'Cluster'`),
	)
	b.run(b.ctx, "this server holds every partition",
		waitJS(`document.querySelector('#cluster-alone')?.textContent.includes('holds all 32 partitions')`),
		waitJS(`document.querySelectorAll('#partition-list tr[data-partition]').length === 32`),
		waitJS(`[...document.querySelectorAll('#partition-list tr[data-partition]')].every(r => r.dataset.here === 'true' && r.cells[1].textContent.trim() === 'this server')`),
	)
	b.screenshot(b.ctx, "cluster")
}
