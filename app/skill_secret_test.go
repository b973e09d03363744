package app_test

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/governance/gate"
)

// TestSkillCredentialsNeverStored: a credential in an imported skill
// (description, body, a script), in a reviewer's edit or in a draft's
// commands is masked before the version is written. The reviewer sees that
// it was masked (a finding on the mask's span); no stored version, agent
// read, recall section or export holds it.
func TestSkillCredentialsNeverStored(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	admin, rita := f.Actors[Admin], f.Actors[TravelReviewer]
	const key, token, edited, drafted = "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "ghp_16C7e42F292c6912E7710c838347Ae178B4a",
		"xoxb-2048-4096-AbCdEfGhIjKlMnOpQrStUvWx", "glpat-Zx9Yw8Vu7Ts6Rq5Po4Nm"
	secrets := []string{key, token, edited, drafted}
	folder := skillFolder("book-hotel", "Book the hotel through the partner API with key "+key+".",
		"\nCall the booking service with "+key+" in the header.\n",
		governance.SkillFile{Path: "scripts/book.sh", Content: []byte("#!/bin/sh\nGITHUB_TOKEN=" + token + " ./book\n")})
	res := importSkills(t, f, "travel-agent", true, folder)
	if res.Saved[0].Activated {
		t.Fatal("a skill that held credentials was activated without a reviewer")
	}
	leaks := func(where, text string) {
		t.Helper()
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s holds the credential %s", where, s)
			}
		}
	}
	stored := func(name string) []*governance.SkillVersion {
		t.Helper()
		sk, err := f.Store.FindSkill(ctx, f.Travel.ID, name)
		if err != nil {
			t.Fatal(err)
		}
		leaks("the skill row", sk.Description)
		vs, err := f.Store.FindSkillVersions(ctx, sk.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			leaks("a stored SKILL.md", v.Content.SkillMD)
			leaks("a stored description", v.Content.Description)
			for _, file := range v.Content.Files {
				leaks("stored "+file.Path, string(file.Content))
			}
			for _, fd := range v.Findings {
				leaks("a finding's excerpt", fd.Excerpt)
			}
		}
		return vs
	}
	v := stored("book-hotel")[0]
	// The reviewer sees each mask as a finding, its span on the stored text.
	masked := map[string]int{}
	for _, fd := range v.Findings {
		if !fd.Redacted {
			continue
		}
		masked[fd.File]++
		text := v.Content.SkillMD
		if fd.File != governance.SkillFileName {
			file, _ := v.Content.File(fd.File)
			text = string(file.Content)
		}
		if fd.Start < 0 || fd.End > len(text) || !strings.HasPrefix(text[fd.Start:fd.End], "[REDACTED:") {
			t.Errorf("masked finding %+v does not span its mask", fd)
		}
	}
	if masked[governance.SkillFileName] != 2 || masked["scripts/book.sh"] != 1 {
		t.Fatalf("masked findings = %v (%+v)", masked, v.Findings)
	}
	if _, err := f.App.Skills.Decide(ctx, rita, app.ProjectSlug("travel-agent"), "book-hotel",
		app.SkillDecisionInput{Action: "approve", Acknowledged: true}); err != nil {
		t.Fatal(err)
	}
	got, err := f.App.Skills.Fetch(ctx, f.Actors[TokenRecall], app.ProjectID(f.Travel.ID), "book-hotel", "scripts/book.sh")
	if err != nil {
		t.Fatal(err)
	}
	leaks("an agent's read", got.SkillMD+got.Description+got.File.Text)
	matches, err := f.App.Skills.Applicable(ctx, f.Actors[TokenRecall], f.Travel.ID, "book the hotel through the partner API")
	if err != nil || len(matches) == 0 {
		t.Fatalf("applicable = %v, %v", matches, err)
	}
	leaks("recall's skills section", matches[0].Description)
	exported, err := f.App.Skills.Export(ctx, admin, app.ProjectSlug("travel-agent"))
	if err != nil || len(exported) != 1 {
		t.Fatalf("export = %v, %v", exported, err)
	}
	for _, file := range exported[0].Content.AllFiles() {
		leaks("the exported "+file.Path, string(file.Content))
	}

	// A reviewer's edit that types a credential in keeps only its mask.
	md := v.Content.SkillMD + "\nOr use the bot token " + edited + ".\n"
	if _, err := f.App.Skills.Edit(ctx, rita, app.ProjectSlug("travel-agent"), "book-hotel", app.SkillEditInput{SkillMD: md}); err != nil {
		t.Fatal(err)
	}
	stored("book-hotel")

	// A draft whose commands carried one.
	dev := f.project(t, "dev-tools", "Dev tools")
	at := time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)
	if _, err := f.App.Skills.LearnProcedures(ctx, &governance.ConsolidateInput{Project: dev, Sessions: []*governance.SessionWork{{
		Events: []*governance.Event{{ID: "e-1", SessionID: "e", SubjectID: "dev-e", Turn: 1, Role: governance.RoleUser, OccurredAt: at,
			Text: "This is how we publish the package:\n1. export GITLAB_TOKEN=" + drafted + "\n2. run make publish\n3. check the registry page"}},
	}}}); err != nil {
		t.Fatal(err)
	}
	list, err := f.App.Skills.List(ctx, admin, app.SkillListInput{Project: app.ProjectID(dev.ID)})
	if err != nil || list.Total != 1 {
		t.Fatalf("drafts = %+v, %v", list, err)
	}
	sk, _ := f.Store.FindSkill(ctx, dev.ID, list.Skills[0].Name)
	vs, _ := f.Store.FindSkillVersions(ctx, sk.ID)
	for _, v := range vs {
		leaks("a draft", v.Content.SkillMD)
	}
}

// TestForgetMeTakesMyDrafts: a member's "forget everything about me"
// deletes the draft skill drafted from what they said, with its name; the
// preview says so.
func TestForgetMeTakesMyDrafts(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	at := time.Date(2026, 5, 6, 9, 0, 0, 0, time.UTC)
	events := []*governance.Event{{ID: "li-9", SessionID: "li-s9", SubjectID: "family-li", Turn: 1, Role: governance.RoleUser, OccurredAt: at,
		Text: "This is how we pack for grandma Meiling:\n1. fold the red qipao\n2. wrap the jade tea set\n3. check the suitcase weighs under 20 kg"}}
	if _, err := f.Store.IngestEvents(ctx, f.Travel.ID, events); err != nil {
		t.Fatal(err)
	}
	if n, err := f.App.Skills.LearnProcedures(ctx, &governance.ConsolidateInput{Project: f.Travel,
		Sessions: []*governance.SessionWork{{Events: events}}}); err != nil || n != 1 {
		t.Fatalf("drafts = %d, %v", n, err)
	}
	li := f.Actors[MemberLi]
	plans, err := f.App.Me.PreviewForget(ctx, li)
	if err != nil || len(plans) != 1 || len(plans[0].Preview.Skills) != 1 || !plans[0].Preview.Skills[0].Delete {
		t.Fatalf("preview = %+v, %v", plans, err)
	}
	name := plans[0].Preview.Skills[0].Name
	if _, err := f.App.Me.Forget(ctx, li); err != nil {
		t.Fatal(err)
	}
	list, err := f.App.Skills.List(ctx, f.Actors[Admin], app.SkillListInput{Project: app.ProjectID(f.Travel.ID)})
	if err != nil || list.Total != 0 {
		t.Fatalf("skills after the forget = %+v, %v", list, err)
	}
	audit, _, err := f.Store.FindAudit(ctx, governance.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range audit {
		for _, text := range []string{name, "Meiling", "qipao", "jade tea"} {
			if strings.Contains(a.Details, text) || strings.Contains(a.Reason, text) {
				t.Errorf("audit row %s keeps %q: %s %s", a.Action, text, a.Details, a.Reason)
			}
		}
	}
}

// TestMaskStoredVersions: a version stored before the console masked
// credentials (written straight to the store) is masked by MaskStored as
// it would be masked now — SKILL.md, description, files, a finding per
// mask, its digest — with a skill.masked audit row; the database file
// keeps no copy; a clean version is left alone and a second run finds
// nothing.
func TestMaskStoredVersions(t *testing.T) {
	f := NewFixture(t)
	ctx := context.Background()
	const key, token = "sk_live_9fD28HqLyjWDarjtT1zdp7xq", "ghp_26C7e42F292c6912E7710c838347Ae178B4b"
	old := governance.SkillContent{Name: "book-hotel", Description: "Book the hotel with the partner key " + key + ".",
		Files: []governance.SkillFile{{Path: "scripts/book.sh", Content: []byte("#!/bin/sh\nGITHUB_TOKEN=" + token + " ./book\n")}}}
	old.SkillMD = "---\nname: book-hotel\ndescription: \"" + old.Description + "\"\n---\n\nCall the booking service.\n"
	_, old.Body, _ = governance.SplitFrontMatter(old.SkillMD)
	saved, err := f.Store.SaveSkill(ctx, "rita", &governance.SkillProposal{ProjectID: f.Travel.ID, Content: old,
		Origin: governance.OriginImport, Activate: true, Reason: "Imported from an agent's skills folder."})
	if err != nil || !saved.Activated {
		t.Fatalf("saved = %+v, %v", saved, err)
	}
	clean := skillFolder("plan-museum-day", "Plan a museum day.", "\n1. Pick one museum.\n")
	importSkills(t, f, "travel-agent", true, clean)

	n, err := f.App.Skills.MaskStored(ctx)
	if err != nil || n != 1 {
		t.Fatalf("masked %d versions, %v; want the one stored unmasked", n, err)
	}
	sk, err := f.Store.FindSkill(ctx, f.Travel.ID, "book-hotel")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := f.Store.FindSkillVersions(ctx, sk.ID)
	if err != nil || len(vs) != 1 {
		t.Fatalf("versions = %d, %v", len(vs), err)
	}
	v := vs[0]
	all := sk.Description + v.Content.SkillMD + v.Content.Description
	for _, file := range v.Content.Files {
		all += string(file.Content)
	}
	for _, s := range []string{key, token} {
		if strings.Contains(all, s) {
			t.Errorf("the stored skill still holds %s", s)
		}
	}
	if !strings.Contains(v.Content.SkillMD, "[REDACTED:") || v.Digest != v.Content.Digest() || sk.Status != governance.SkillActive {
		t.Errorf("version = %+v (digest %s, content %s), skill %s", v.Content, v.Digest, v.Content.Digest(), sk.Status)
	}
	masks := 0
	for _, fd := range v.Findings {
		if fd.Redacted {
			masks++
		}
	}
	if masks < 2 {
		t.Errorf("%d mask findings, want one a credential: %+v", masks, v.Findings)
	}
	rows, _, err := f.Store.FindAudit(ctx, governance.AuditFilter{ObjectType: "skill", ObjectID: strconv.FormatInt(sk.ID, 10), Limit: 1})
	if err != nil || len(rows) != 1 || rows[0].Action != "skill.masked" || rows[0].Actor != app.SystemActor || strings.Contains(rows[0].Details, key) {
		t.Fatalf("audit = %+v, %v", rows, err)
	}
	if err := f.Store.Checkpoint(ctx); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{f.Store.Path(), f.Store.Path() + "-wal"} {
		b, err := os.ReadFile(path)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		for _, s := range []string{key, token} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s still holds %s", path, s)
			}
		}
	}
	if n, err := f.App.Skills.MaskStored(ctx); err != nil || n != 0 {
		t.Fatalf("second run masked %d, %v", n, err)
	}

	// The store is marked as masked by this gate: a later start reads no
	// version (one stored unmasked behind the console's back stays as it
	// is), and a changed gate reads them all again.
	if by, err := f.Store.SkillsMaskedBy(ctx); err != nil || by != gate.Version() {
		t.Fatalf("masked by %q, %v; want %q", by, err, gate.Version())
	}
	later := old
	later.Name, later.SkillMD = "book-flight", strings.ReplaceAll(old.SkillMD, "book-hotel", "book-flight")
	if _, err := f.Store.SaveSkill(ctx, "rita", &governance.SkillProposal{ProjectID: f.Travel.ID, Content: later,
		Origin: governance.OriginImport, Activate: true, Reason: "Imported from an agent's skills folder."}); err != nil {
		t.Fatal(err)
	}
	if n, err := f.App.Skills.MaskStored(ctx); err != nil || n != 0 {
		t.Fatalf("a start after masking masked %d, %v; want no read", n, err)
	}
	if err := f.Store.SetSkillsMaskedBy(ctx, "0-earlier-gate"); err != nil {
		t.Fatal(err)
	}
	if n, err := f.App.Skills.MaskStored(ctx); err != nil || n != 1 {
		t.Fatalf("a start after a gate change masked %d, %v; want the one version", n, err)
	}
}
