package web_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

// zipOf builds a zip archive of name → content.
func zipOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range files {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func uploadSkills(t *testing.T, c *Client, project string, activate bool, archive []byte, header ...string) (*http.Response, *goquery.Document) {
	t.Helper()
	token := c.CSRF("/admin/skills/import")
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("csrf", token)
	mw.WriteField("project", project)
	if activate {
		mw.WriteField("activate", "yes")
	}
	fw, _ := mw.CreateFormFile("file", "skills.zip")
	fw.Write(archive)
	mw.Close()
	h := http.Header{"Content-Type": {mw.FormDataContentType()}}
	for i := 0; i+1 < len(header); i += 2 {
		h.Set(header[i], header[i+1])
	}
	res, b := c.Do(http.MethodPost, "/admin/skills/import", &body, h)
	return res, parse(t, b)
}

const museumSkill = "---\nname: plan-museum-day\ndescription: Plan a museum day for a family with small children.\n---\n\n1. Pick one museum.\n2. Leave 14:00-16:00 free for the nap.\n"

// TestSkillPages: an administrator uploads skill folders; a risky one
// waits with its findings, its files shown as text; the reviewer approves
// it only after confirming the findings; a changed upload shows a diff;
// agents read active skills only.
func TestSkillPages(t *testing.T) {
	f := NewFixture(t, web.Config{})
	admin := f.Login(t, Admin)
	archive := zipOf(t, map[string]string{
		"skills/plan-museum-day/SKILL.md": museumSkill,
		"skills/share-itinerary/SKILL.md": "---\nname: share-itinerary\ndescription: Share the itinerary with the family.\n---\n\n" +
			"Run scripts/share.sh. <script>alert(1)</script>\n",
		"skills/share-itinerary/scripts/share.sh":      "#!/bin/sh\ncurl -d @plan.json https://share.example.net/up\n",
		"skills/share-itinerary/scripts/../../../evil": "x",
	})
	res, doc := uploadSkills(t, admin, "travel-agent", true, archive)
	wantStatus(t, res, http.StatusOK)
	rows := doc.Find(testid("skill-import-row"))
	if rows.Length() != 2 {
		t.Fatalf("import rows = %d\n%s", rows.Length(), doc.Find("main").Text())
	}

	rita := f.Login(t, TravelReviewer)
	res, doc = rita.Get("/projects/travel-agent/skills")
	wantStatus(t, res, http.StatusOK)
	status := map[string]string{}
	doc.Find(testid("skill-row")).Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("data-skill")
		st, _ := s.Find(testid("skill-status")).Attr("class")
		status[name] = strings.TrimSpace(s.Find(testid("skill-status")).Text()) + "|" + st
	})
	if !strings.HasPrefix(status["plan-museum-day"], "active") || !strings.HasPrefix(status["share-itinerary"], "proposed") {
		t.Fatalf("statuses = %v", status)
	}
	if doc.Find(testid("skill-curator")).Length() != 1 {
		t.Error("no curator section")
	}

	page := "/projects/travel-agent/skills/share-itinerary"
	res, body := rita.Do(http.MethodGet, page, nil, nil)
	wantStatus(t, res, http.StatusOK)
	if strings.Contains(body, "<script>alert(1)</script>") || !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Fatal("a skill's text reached the page unescaped")
	}
	doc = parse(t, body)
	cats := map[string]bool{}
	doc.Find(testid("skill-finding")).Each(func(_ int, s *goquery.Selection) {
		c, _ := s.Attr("data-category")
		cats[c] = true
	})
	for _, want := range []string{governance.SkillScript, governance.SkillNetwork, governance.GatePathTraversal} {
		if !cats[want] {
			t.Errorf("no %s finding on the page: %v", want, cats)
		}
	}
	if doc.Find(testid("risk-span")).Length() == 0 {
		t.Error("no finding span marked in the files")
	}
	res, doc = rita.PostForm(page, page+"/decide", url.Values{"action": {"approve"}, "version": {"1"}})
	wantStatus(t, res, http.StatusUnprocessableEntity)
	if doc.Find(testid("acknowledged-error")).Length() != 1 {
		t.Fatalf("no acknowledgement error:\n%s", doc.Find(testid("skill-actions")).Text())
	}
	res, _ = rita.PostForm(page, page+"/decide", url.Values{"action": {"approve"}, "version": {"1"}, "acknowledged": {"yes"}})
	wantStatus(t, res, http.StatusSeeOther)
	if s, _ := f.Store.FindSkill(context.Background(), f.Travel.ID, "share-itinerary"); s.Status != governance.SkillActive {
		t.Fatalf("status after approval = %s", s.Status)
	}

	// A changed upload is a new proposal, shown as a diff beside the active version.
	changed := strings.Replace(museumSkill, "2. Leave", "2. Book tickets online.\n3. Leave", 1)
	res, _ = uploadSkills(t, admin, "travel-agent", false, zipOf(t, map[string]string{"plan-museum-day/SKILL.md": changed}))
	wantStatus(t, res, http.StatusOK)
	res, doc = rita.Get("/projects/travel-agent/skills/plan-museum-day")
	wantStatus(t, res, http.StatusOK)
	if ins := doc.Find(testid("diff-ins")).Text(); !strings.Contains(ins, "Book tickets online.") {
		t.Fatalf("diff = %q", ins)
	}

	// A bad folder rejects the upload, naming the folder and the file.
	res, doc = uploadSkills(t, admin, "travel-agent", true, zipOf(t, map[string]string{"Bad_Name/SKILL.md": "no front matter"}))
	wantStatus(t, res, http.StatusUnprocessableEntity)
	if p := doc.Find(testid("skill-import-problem")).Text(); !strings.Contains(p, "Bad_Name/SKILL.md") {
		t.Fatalf("problems = %q", p)
	}
	// In Chinese each problem is said with its values, from its Text.
	_, doc = uploadSkills(t, admin, "travel-agent", true, zipOf(t, map[string]string{"Bad_Name/SKILL.md": "---\nname: Bad_Name\ndescription: x\n---\nsteps\n"}),
		"Accept-Language", "zh-CN")
	wantChinese(t, "skill import problems", doc.Find(testid("skill-import-problems")), []string{`name "Bad_Name" 不是短横线格式`}, []string{"is not kebab-case"})
	res, _ = uploadSkills(t, admin, "travel-agent", true, []byte("not an archive"))
	wantStatus(t, res, http.StatusUnprocessableEntity)

	// Agents: the two active skills, one read counted.
	token := mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeRecall)
	var list struct {
		Skills []struct{ Name string } `json:"skills"`
		Total  int                     `json:"total"`
	}
	wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/skills", token, "", nil, &list), http.StatusOK)
	if list.Total != 2 {
		t.Fatalf("agent list = %+v", list)
	}
	var sk struct {
		Version int    `json:"version"`
		SkillMD string `json:"skill_md"`
		File    *struct {
			Text string `json:"text"`
		} `json:"file"`
	}
	wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/skills/share-itinerary?file=scripts/share.sh", token, "", nil, &sk), http.StatusOK)
	if sk.Version != 1 || sk.File == nil || !strings.Contains(sk.File.Text, "curl") {
		t.Fatalf("skill = %+v", sk)
	}
	wantStatus(t, apiCall(t, f.Server.URL, http.MethodGet, "/api/v1/skills/nope", token, "", nil, nil), http.StatusNotFound)
	if s, _ := f.Store.FindSkill(context.Background(), f.Travel.ID, "share-itinerary"); s.Uses != 1 {
		t.Fatalf("uses = %d", s.Uses)
	}

	// MCP: the same.
	cs, err := mcpConnect(t, f.Server.URL, token)
	if err != nil {
		t.Fatal(err)
	}
	_, text := callTool(t, cs, "list_skills", map[string]any{})
	if !strings.Contains(text, "plan-museum-day") || !strings.Contains(text, "share-itinerary") {
		t.Fatalf("list_skills = %s", text)
	}
	_, text = callTool(t, cs, "get_skill", map[string]any{"name": "plan-museum-day"})
	var got struct {
		Name    string `json:"name"`
		SkillMD string `json:"skill_md"`
	}
	if err := json.Unmarshal([]byte(text), &got); err != nil || got.Name != "plan-museum-day" || !strings.Contains(got.SkillMD, "Pick one museum") {
		t.Fatalf("get_skill = %s (%v)", text, err)
	}

	// The export page offers the active skills per agent layout; the
	// archive holds them with their markers.
	res, doc = rita.Get("/projects/travel-agent/export")
	wantStatus(t, res, http.StatusOK)
	if doc.Find(testid("download-skills-claude")).Length() != 1 {
		t.Fatal("the export page offers no skills")
	}
	res, data := rita.Do(http.MethodGet, "/projects/travel-agent/export/skills/claude.zip", nil, nil)
	wantStatus(t, res, http.StatusOK)
	zr, err := zip.NewReader(bytes.NewReader([]byte(data)), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range zr.File {
		names[f.Name] = true
	}
	for _, want := range []string{".claude/skills/plan-museum-day/SKILL.md", ".claude/skills/share-itinerary/scripts/share.sh",
		".claude/skills/share-itinerary/.mnemo-skill.json"} {
		if !names[want] {
			t.Errorf("archive lacks %s: %v", want, names)
		}
	}
}

// TestSkillPagesInChinese: the skills pages and a finding's reason speak
// the reader's language.
func TestSkillPagesInChinese(t *testing.T) {
	f := NewFixture(t, web.Config{})
	admin := f.Login(t, Admin)
	res, _ := uploadSkills(t, admin, "travel-agent", true, zipOf(t, map[string]string{
		"share-itinerary/SKILL.md":         "---\nname: share-itinerary\ndescription: Share the itinerary.\n---\n\nRun the script.\n",
		"share-itinerary/scripts/share.sh": "#!/bin/sh\ncurl -d @plan.json https://share.example.net/up\n",
	}))
	wantStatus(t, res, http.StatusOK)
	rita := f.Login(t, TravelReviewer)
	page := "/projects/travel-agent/skills/share-itinerary"
	inChinese(t, rita, page)
	res, doc := rita.Get(page)
	wantStatus(t, res, http.StatusOK)
	why := doc.Find(testid("finding-why")).First().Text()
	if why == "" || strings.Contains(why, "script the agent can run") {
		t.Errorf("finding reason = %q", why)
	}
	if h := doc.Find(testid("skill-versions") + " h2").Text(); h == "" || strings.Contains(h, "Versions") {
		t.Errorf("versions heading = %q", h)
	}
}
