package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
)

func TestProjectPolicy(t *testing.T) {
	ctx := context.Background()
	d := MustLoadDemo(t)
	if err := d.Store.SetProjectAutoActivate(ctx, "admin", d.Travel.ID, true); err != nil {
		t.Fatal(err)
	}
	p, _ := d.Store.FindProjectByID(ctx, d.Travel.ID)
	if !p.AutoActivate {
		t.Fatal("policy not changed")
	}
	rows, _, _ := d.Store.FindAudit(ctx, governance.AuditFilter{Action: "project.policy", Limit: 1})
	if len(rows) != 1 || rows[0].Actor != "admin" || !strings.Contains(rows[0].Details, "auto_activate") {
		t.Fatalf("audit = %+v", rows)
	}
	wantCode(t, d.Store.SetProjectAutoActivate(ctx, "admin", 9999, true), governance.ENOTFOUND)
}
