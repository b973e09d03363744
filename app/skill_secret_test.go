package app_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
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
