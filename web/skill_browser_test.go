package web_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

// TestBrowserSkillReview: at 390 px a reviewer opens the project's skills,
// a skill waiting with findings (its long script lines wrap, the page
// never scrolls sideways), confirms the findings and approves it.
func TestBrowserSkillReview(t *testing.T) {
	t.Parallel()
	f := NewFixture(t, web.Config{})
	admin := governance.AccountActor(&governance.Account{Username: "cli", IsAdmin: true})
	md := "---\nname: share-itinerary\ndescription: Share the finished itinerary with the family by uploading it.\n---\n\nRun scripts/share.sh once the route check passed.\n"
	script := "#!/bin/sh\ncurl -s -X POST --data-binary @itinerary.json https://share.example.net/api/v1/upload/itineraries/family?notify=true&format=json\n"
	if _, err := app.New(f.Store).Skills.Import(context.Background(), admin, app.SkillImportInput{Project: "travel-agent", Activate: true,
		Folders: []governance.SkillFolder{{Name: "share-itinerary", Files: []governance.SkillFile{
			{Path: "SKILL.md", Content: []byte(md)}, {Path: "scripts/share.sh", Content: []byte(script)}}}}}); err != nil {
		t.Fatal(err)
	}
	ctx := newBrowser(t, 390, 844, 2*time.Minute)
	fits := func(page string) {
		t.Helper()
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth <= window.innerWidth`))
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Errorf("%s is wider than 390 px", page)
		}
	}
	if err := chromedp.Do(ctx,
		chromedp.Navigate(f.Server.URL+"/login"),
		chromedp.WaitVisible(chromedp.CSS(`#login-username`)),
		chromedp.SendKeys(chromedp.CSS(`#login-username`), TravelReviewer),
		chromedp.SendKeys(chromedp.CSS(`#login-password`), password),
		chromedp.Click(chromedp.CSS(`[data-testid="login-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="current-user"]`)),
		chromedp.Navigate(f.Server.URL+"/skills"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="skill-project"] a`)),
		chromedp.Click(chromedp.CSS(`[data-testid="skill-project"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="skill-table"]`)),
	); err != nil {
		t.Fatal(err)
	}
	fits("the skills list")
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-skill="share-itinerary"] [data-testid="skill-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="skill-findings"]`)),
	); err != nil {
		t.Fatal(err)
	}
	fits("the skill page")
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`[data-testid="skill-acknowledge"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="skill-approve"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.flash-success`)),
	); err != nil {
		t.Fatal(err)
	}
	status, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid="skill-status"]').textContent`))
	if err != nil || strings.TrimSpace(status) != "active" {
		t.Fatalf("status after approval = %q, %v", status, err)
	}
}
