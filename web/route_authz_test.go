package web_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/app"
	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

// Actors of the route inventory, in the order each route is tried: those
// who must be refused first, so an allowed action cannot change what a
// refusal looks like.
var inventoryActors = []string{"anonymous", MemberWang, ExpenseReviewer, MemberLi, TravelReviewer, Admin}

// pass: the policy let the request through; the handler may still refuse
// the (empty) input or the object's state, but not with 401, 403, 404 or
// a redirect to the login page.
const pass = -1

// expect is what each actor gets from one route: anonymous, a member
// (family-li, whom the fixture's objects are about), a member of another
// subject (family-wang), a reviewer of travel-agent, a reviewer of another
// project (expense-agent) and an admin.
type expect struct {
	anon, member, otherMember, reviewer, otherReviewer, admin int
}

func (e expect) of(actor string) int {
	return map[string]int{"anonymous": e.anon, MemberLi: e.member, MemberWang: e.otherMember,
		TravelReviewer: e.reviewer, ExpenseReviewer: e.otherReviewer, Admin: e.admin}[actor]
}

// TestRouteInventory walks every route echo has registered and requires an
// expectation for each kind of actor, so a new route cannot ship without
// its authorization being decided and checked here. Objects in the paths
// belong to travel-agent and are about family-li.
func TestRouteInventory(t *testing.T) {
	// /metrics answers whoever may read it with the handler's 200.
	f := NewFixture(t, web.Config{Metrics: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "# metrics\n") })})
	ctx := context.Background()
	now := time.Now().UTC().Format(time.RFC3339)
	rule := mustAPIRule(t, f.Store, f.Travel.ID, "family-li", governance.TypePreference, "孩子每天下午要午睡")
	res, err := f.Store.DB().ExecContext(ctx, `
		INSERT INTO candidates (project_id, session_id, subject_id, type, statement, extractor, status, created_at, updated_at)
		VALUES (?, 'bj-1', 'family-li', 'fact', '女儿五岁', 'test', 'held', ?, ?)`, f.Travel.ID, now, now)
	if err != nil {
		t.Fatal(err)
	}
	cand, _ := res.LastInsertId()
	if _, err := f.Store.DB().ExecContext(ctx, `UPDATE candidates SET group_id = id WHERE id = ?`, cand); err != nil {
		t.Fatal(err)
	}
	// Forgets run for real: each actor the policy lets through forgets its
	// own rule and candidate, so one actor's forget cannot turn the next
	// one's answer into a 404.
	forgettable := map[string][2]int64{}
	for _, actor := range inventoryActors {
		res, err := f.Store.DB().ExecContext(ctx, `
			INSERT INTO candidates (project_id, session_id, subject_id, type, statement, extractor, status, created_at, updated_at)
			VALUES (?, 'bj-1', 'family-li', 'fact', ?, 'test', 'held', ?, ?)`, f.Travel.ID, "候选 "+actor, now, now)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		if _, err := f.Store.DB().ExecContext(ctx, `UPDATE candidates SET group_id = id WHERE id = ?`, id); err != nil {
			t.Fatal(err)
		}
		forgettable[actor] = [2]int64{mustAPIRule(t, f.Store, f.Travel.ID, "family-li", governance.TypeFact, "规则 "+actor), id}
	}
	mustAPIToken(t, f.Store, f.Travel.ID, governance.ScopeRecall)
	followed := &governance.FollowSource{ProjectID: f.Travel.ID, Dir: t.TempDir(), Format: "auto"}
	if err := f.Store.EnsureSource(ctx, followed); err != nil {
		t.Fatal(err)
	}
	// Administration acts on an account and a project of its own, so no
	// inventory actor loses its role or its sessions.
	spareProject := MustCreateProject(t, f.Store, "spare-project", "Spare")
	spare := MustCreateAccount(t, f.Store, &governance.Account{Username: "spare", Memberships: []governance.Membership{
		{ProjectID: spareProject.ID, Role: governance.ProjectReviewer}}})
	acct := "/admin/accounts/" + strconv.FormatInt(spare.ID, 10)
	proj := "/admin/projects/" + strconv.FormatInt(spareProject.ID, 10)
	tokens, err := f.Store.FindTokens(ctx, governance.TokenFilter{})
	if err != nil || len(tokens) != 1 {
		t.Fatalf("tokens = %v, %v", tokens, err)
	}

	const (
		ok   = http.StatusOK
		see  = http.StatusSeeOther
		no   = http.StatusForbidden
		gone = http.StatusNotFound
		unau = http.StatusUnauthorized
	)
	everyone := func(st int) expect { return expect{st, st, st, st, st, st} }
	signedIn := func(st int) expect { return expect{see, st, st, st, st, st} }
	reviewers := func(st int) expect { return expect{see, no, no, st, st, st} }
	admins := func(st int) expect { return expect{see, no, no, no, no, st} }
	// travel: reviewers and admins of travel-agent; members 403.
	travel := func(st int) expect { return expect{see, no, no, st, no, st} }
	// own: the member the object is about, travel's reviewers and admins;
	// another subject's member gets 404, the other reviewer 403.
	own := func(st int) expect { return expect{see, st, gone, st, no, st} }
	// project: anyone with a role in travel-agent.
	project := func(st int) expect { return expect{see, st, st, st, no, st} }
	token := everyone(unau) // the agent API and MCP never accept the session cookie

	// A skill of travel-agent for the skills routes.
	skillMD := "---\nname: plan-museum-day\ndescription: Plan a museum day with a nap window.\n---\n\n1. Pick one museum.\n"
	if _, err := f.Store.SaveSkill(ctx, "cli", &governance.SkillProposal{ProjectID: f.Travel.ID, Origin: governance.OriginImport, Activate: true,
		Content: governance.SkillContent{Name: "plan-museum-day", Description: "Plan a museum day with a nap window.", SkillMD: skillMD}}); err != nil {
		t.Fatal(err)
	}
	skill := "/projects/travel-agent/skills/plan-museum-day"
	r := strconv.FormatInt(rule, 10)
	c := strconv.FormatInt(cand, 10)
	// A recall about family-li and an outcome review of the rule.
	pkg, err := f.Store.Recall(ctx, "token:1", governance.RecallRequest{Task: "孩子午睡", ProjectID: f.Travel.ID, SubjectID: "family-li"})
	if err != nil {
		t.Fatal(err)
	}
	trace := strconv.FormatInt(pkg.Trace.ID, 10)
	if err := f.Store.ApplyOutcomeReviewPlan(ctx, &governance.OutcomeReviewPlan{ProjectID: f.Travel.ID,
		Drafts: []governance.OutcomeReviewDraft{{RuleID: rule, RuleVersion: 1, Sessions: 2}}}); err != nil {
		t.Fatal(err)
	}
	reviews, _, err := f.Store.FindOutcomeReviews(ctx, governance.OutcomeReviewFilter{RuleID: rule})
	if err != nil || len(reviews) != 1 {
		t.Fatalf("outcome reviews = %v, %v", reviews, err)
	}
	ov := "/outcome-reviews/" + strconv.FormatInt(reviews[0].ID, 10)
	type route struct {
		path string // a concrete path for the route's pattern
		get  *expect
		post *expect
		// other methods (DELETE, and echo's Any on the API catch-all)
		other *expect
		// postPath, when set, is the path each actor POSTs to.
		postPath func(actor string) string
	}
	e := func(x expect) *expect { return &x }
	routes := map[string]route{
		"/healthz":                             {path: "/healthz", get: e(everyone(ok))},
		"/metrics":                             {path: "/metrics", get: e(expect{unau, no, no, no, no, ok})},
		"/static/*":                            {path: "/static/app.css", get: e(everyone(ok))},
		"/login":                               {path: "/login", get: e(expect{ok, see, see, see, see, see}), post: e(everyone(pass))},
		"/logout":                              {path: "/logout", post: e(signedIn(see))},
		"/":                                    {path: "/", get: e(signedIn(ok))},
		"/events":                              {path: "/events", get: e(signedIn(ok))},
		"/events/:seq":                         {path: fmt.Sprintf("/events/%d", f.Seqs["bj-1-3"]), get: e(own(ok))},
		"/projects/:project/sessions":          {path: "/projects/travel-agent/sessions", get: e(project(ok))},
		"/projects/:project/sessions/:session": {path: "/projects/travel-agent/sessions/bj-1", get: e(own(ok))},
		"/search":                              {path: "/search?q=hotel&project=travel-agent", get: e(project(ok))},
		"/episodes":                            {path: "/episodes?project=travel-agent", get: e(project(ok))},
		"/candidates":                          {path: "/candidates?project=travel-agent", get: e(project(ok))},
		"/heartbeat":                           {path: "/heartbeat", get: e(reviewers(ok))},
		"/heartbeat/panel":                     {path: "/heartbeat/panel", get: e(reviewers(ok))},
		"/heartbeat/run":                       {path: "/heartbeat/run", post: e(reviewers(pass))},
		"/admin/import":                        {path: "/admin/import", get: e(admins(ok)), post: e(admins(pass))},
		"/admin/sources":                       {path: "/admin/sources", get: e(admins(ok)), post: e(admins(pass))},
		"/admin/sources/:id/stop":              {path: "/admin/sources/" + strconv.FormatInt(followed.ID, 10) + "/stop", get: e(admins(ok)), post: e(admins(pass))},
		"/recall":                              {path: "/recall", get: e(signedIn(ok)), post: e(signedIn(pass))},
		"/export":                              {path: "/export", get: e(signedIn(ok))},
		"/projects/:project/export":            {path: "/projects/travel-agent/export", get: e(project(ok))},
		"/projects/:project/export/:file":      {path: "/projects/travel-agent/export/USER.md", get: e(project(ok))},
		"/admin/tokens":                        {path: "/admin/tokens", get: e(admins(ok)), post: e(admins(pass))},
		"/admin/tokens/:id/revoke":             {path: "/admin/tokens/" + strconv.FormatInt(tokens[0].ID, 10) + "/revoke", get: e(admins(ok)), post: e(admins(pass))},
		"/review":                              {path: "/review", get: e(reviewers(ok))},
		"/review/badge":                        {path: "/review/badge", get: e(reviewers(ok))},
		"/projects/:project/review":            {path: "/projects/travel-agent/review", get: e(travel(ok))},
		"/projects/:project/review/approve":    {path: "/projects/travel-agent/review/approve", post: e(travel(pass))},
		"/projects/:project/review/reject":     {path: "/projects/travel-agent/review/reject", post: e(travel(pass))},
		"/projects/:project/review/merge":      {path: "/projects/travel-agent/review/merge", post: e(travel(pass))},
		"/projects/:project/review/classes":    {path: "/projects/travel-agent/review/classes", post: e(travel(pass))},
		"/projects/:project/review/classes/:id/lift": {path: "/projects/travel-agent/review/classes/1/lift", post: e(travel(pass))},
		"/projects/:project/policy":                  {path: "/projects/travel-agent/policy", post: e(expect{see, no, no, no, no, pass})},
		"/projects/:project/outcome-policy":          {path: "/projects/travel-agent/outcome-policy", post: e(expect{see, no, no, no, no, pass})},
		"/recall/traces/:id":                         {path: "/recall/traces/" + trace, get: e(own(ok))},
		"/outcome-reviews/:id":                       {path: ov, get: e(travel(ok))},
		"/outcome-reviews/:id/effect":                {path: ov + "/effect", get: e(travel(ok))},
		"/outcome-reviews/:id/decide":                {path: ov + "/decide", post: e(travel(pass))},
		"/rules/:id/effect":                          {path: "/rules/" + r + "/effect", get: e(travel(pass))},
		"/rules":                                     {path: "/rules", get: e(reviewers(ok))},
		"/rules/forget":                              {path: "/rules/forget", post: e(reviewers(pass))},
		"/rules/:id":                                 {path: "/rules/" + r, get: e(travel(ok))},
		"/rules/:id/evidence":                        {path: "/rules/" + r + "/evidence", get: e(travel(see))},
		"/rules/:id/approve":                         {path: "/rules/" + r + "/approve", post: e(travel(pass))},
		"/rules/:id/reject":                          {path: "/rules/" + r + "/reject", post: e(travel(pass))},
		"/rules/:id/hold":                            {path: "/rules/" + r + "/hold", post: e(travel(pass))},
		"/rules/:id/split":                           {path: "/rules/" + r + "/split", post: e(travel(pass))},
		"/rules/:id/edit":                            {path: "/rules/" + r + "/edit", post: e(travel(pass))},
		"/rules/:id/demote":                          {path: "/rules/" + r + "/demote", post: e(travel(pass))},
		"/rules/:id/to-candidates":                   {path: "/rules/" + r + "/to-candidates", post: e(travel(pass))},
		"/rules/:id/restore":                         {path: "/rules/" + r + "/restore", post: e(travel(pass))},
		"/rules/:id/supersede":                       {path: "/rules/" + r + "/supersede", post: e(travel(pass))},
		"/rules/:id/pause":                           {path: "/rules/" + r + "/pause", post: e(travel(pass))},
		"/rules/:id/unpause":                         {path: "/rules/" + r + "/unpause", post: e(travel(pass))},
		"/rules/:id/expiry":                          {path: "/rules/" + r + "/expiry", post: e(travel(pass))},
		"/rules/:id/undo":                            {path: "/rules/" + r + "/undo", post: e(travel(pass))},
		"/rules/undo":                                {path: "/rules/undo", post: e(reviewers(pass))},
		"/rules/:id/forget": {path: "/rules/" + r + "/forget", get: e(own(ok)), post: e(own(pass)),
			postPath: func(actor string) string { return fmt.Sprintf("/rules/%d/forget", forgettable[actor][0]) }},
		// Deciding a held or blocked candidate: travel's reviewers and admins;
		// the other project's reviewer does not learn that it exists.
		"/candidates/:id/decide":  {path: "/candidates/" + c + "/decide", get: e(expect{see, no, no, ok, gone, ok})},
		"/candidates/:id/release": {path: "/candidates/" + c + "/release", post: e(expect{see, no, no, pass, gone, pass})},
		"/candidates/:id/reject":  {path: "/candidates/" + c + "/reject", post: e(expect{see, no, no, pass, gone, pass})},
		"/candidates/:id/forget": {path: "/candidates/" + c + "/forget", get: e(own(ok)), post: e(own(pass)),
			postPath: func(actor string) string { return fmt.Sprintf("/candidates/%d/forget", forgettable[actor][1]) }},
		"/me":                             {path: "/me", get: e(signedIn(ok))},
		"/me/language":                    {path: "/me/language", post: e(signedIn(see))},
		"/me/export.json":                 {path: "/me/export.json", get: e(signedIn(ok))},
		"/me/remember":                    {path: "/me/remember", post: e(expect{see, pass, pass, gone, gone, gone})},
		"/memories/new":                   {path: "/memories/new", get: e(reviewers(ok)), post: e(reviewers(pass))},
		"/me/forget":                      {path: "/me/forget", get: e(expect{see, ok, ok, gone, gone, gone}), post: e(expect{see, pass, pass, gone, gone, gone})},
		"/audit":                          {path: "/audit", get: e(reviewers(ok))},
		"/audit.csv":                      {path: "/audit.csv", get: e(reviewers(ok))},
		"/admin/forget":                   {path: "/admin/forget", get: e(admins(ok)), post: e(admins(pass))},
		"/admin/accounts":                 {path: "/admin/accounts", get: e(admins(ok)), post: e(admins(pass))},
		"/admin/accounts/:id":             {path: acct, get: e(admins(ok))},
		"/admin/accounts/:id/password":    {path: acct + "/password", post: e(admins(see))},
		"/admin/accounts/:id/admin":       {path: acct + "/admin", post: e(admins(see))},
		"/admin/accounts/:id/disable":     {path: acct + "/disable", post: e(admins(see))},
		"/admin/accounts/:id/enable":      {path: acct + "/enable", post: e(admins(see))},
		"/admin/accounts/:id/memberships": {path: acct + "/memberships", post: e(admins(see))},
		"/admin/accounts/:id/memberships/:project/remove": {path: acct + "/memberships/" + strconv.FormatInt(spareProject.ID, 10) + "/remove", post: e(admins(see))},
		"/admin/projects":                          {path: "/admin/projects", get: e(admins(ok)), post: e(admins(pass))},
		"/admin/projects/:id":                      {path: proj, get: e(admins(ok)), post: e(admins(pass))},
		"/admin/projects/:id/delete":               {path: proj + "/delete", get: e(admins(ok)), post: e(admins(pass))},
		"/evals":                                   {path: "/evals", get: e(reviewers(ok))},
		"/evals/suites":                            {path: "/evals/suites", post: e(reviewers(pass))},
		"/evals/suites/:id":                        {path: "/evals/suites/999999", get: e(reviewers(gone))},
		"/evals/suites/:id/runs":                   {path: "/evals/suites/999999/runs", post: e(reviewers(gone))},
		"/evals/runs/:id":                          {path: "/evals/runs/999999", get: e(reviewers(gone))},
		"/evals/runs/:id/panel":                    {path: "/evals/runs/999999/panel", get: e(reviewers(gone))},
		"/evals/runs/:id/cancel":                   {path: "/evals/runs/999999/cancel", post: e(reviewers(gone))},
		"/evals/compare":                           {path: "/evals/compare", get: e(reviewers(pass))},
		"/evals/benchmarks":                        {path: "/evals/benchmarks", get: e(reviewers(ok)), post: e(reviewers(pass))},
		"/rules/:id/checks":                        {path: "/rules/" + r + "/checks", get: e(travel(ok)), post: e(travel(pass))},
		"/rules/:id/checks/delete":                 {path: "/rules/" + r + "/checks/delete", post: e(travel(pass))},
		"/skills":                                  {path: "/skills", get: e(signedIn(ok))},
		"/projects/:project/skills":                {path: "/projects/travel-agent/skills", get: e(travel(ok))},
		"/projects/:project/skills/curate":         {path: "/projects/travel-agent/skills/curate", post: e(travel(pass))},
		"/projects/:project/skills/:name":          {path: skill, get: e(travel(ok))},
		"/projects/:project/skills/:name/decide":   {path: skill + "/decide", post: e(travel(pass))},
		"/projects/:project/skills/:name/edit":     {path: skill + "/edit", post: e(travel(pass))},
		"/projects/:project/export/skills/:layout": {path: "/projects/travel-agent/export/skills/claude.zip", get: e(travel(ok))},
		"/admin/skills/import":                     {path: "/admin/skills/import", get: e(admins(ok)), post: e(admins(pass))},
		"/api/v1/skills":                           {path: "/api/v1/skills", get: e(token)},
		"/api/v1/skills/:name":                     {path: "/api/v1/skills/plan-museum-day", get: e(token)},
		"/api/v1/openapi.json":                     {path: "/api/v1/openapi.json", get: e(everyone(ok))},
		"/api/v1/events":                           {path: "/api/v1/events", post: e(token)},
		"/api/v1/recall":                           {path: "/api/v1/recall", post: e(token)},
		"/api/v1/rules":                            {path: "/api/v1/rules", get: e(token)},
		"/api/v1/search":                           {path: "/api/v1/search?q=nap", get: e(token)},
		"/api/v1/rules/:id/forget":                 {path: "/api/v1/rules/" + r + "/forget", post: e(token)},
		"/api/v1/subjects/:id":                     {path: "/api/v1/subjects/family-li", other: e(token)},
		"/api/v1/export":                           {path: "/api/v1/export", get: e(token)},
		"/api/v1/recalls/:id":                      {path: "/api/v1/recalls/" + trace, get: e(token)},
		"/api/v1/recalls/:id/outcome":              {path: "/api/v1/recalls/" + trace + "/outcome", post: e(token)},
		"/api/*":                                   {path: "/api/v1/no-such", get: e(everyone(gone)), post: e(everyone(gone)), other: e(everyone(gone))},
		web.MCPPath:                                {path: web.MCPPath, get: e(token), post: e(token), other: e(token)},
	}

	srv, err := web.NewServer(web.Config{}, app.New(f.Store), slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	type methodPath struct{ method, path string }
	var registered []methodPath
	for _, rt := range srv.Echo().Routes() {
		registered = append(registered, methodPath{rt.Method, rt.Path})
	}
	// A member's "forget everything about me" tombstones the subject of
	// the rule and candidate the member's own per-route forgets use (a
	// forgotten subject's memories are no one's): it runs last.
	last := func(r methodPath) bool { return r.method == http.MethodPost && r.path == "/me/forget" }
	sort.Slice(registered, func(i, j int) bool {
		if last(registered[i]) != last(registered[j]) {
			return last(registered[j])
		}
		if registered[i].method != registered[j].method {
			return registered[i].method < registered[j].method // GET before POST
		}
		return registered[i].path < registered[j].path
	})

	clients := map[string]*Client{"anonymous": f.Anonymous(t)}
	for _, u := range inventoryActors[1:] {
		clients[u] = f.Login(t, u)
	}
	covered := map[string]bool{}
	for _, rt := range registered {
		spec, found := routes[rt.path]
		var want *expect
		switch {
		case !found:
		case rt.method == http.MethodGet:
			want = spec.get
		case rt.method == http.MethodPost:
			want = spec.post
		default:
			want = spec.other
		}
		if want == nil {
			t.Errorf("%s %s has no authorization expectation: add it to TestRouteInventory", rt.method, rt.path)
			continue
		}
		covered[rt.path] = true
		for _, actor := range inventoryActors {
			t.Run(actor+" "+rt.method+" "+rt.path, func(t *testing.T) {
				cl := clients[actor]
				if (rt.path == "/logout" || rt.path == "/login") && actor != "anonymous" {
					cl = f.Login(t, actor) // keep the shared client signed in
				}
				path := spec.path
				if rt.method == http.MethodPost && spec.postPath != nil {
					path = spec.postPath(actor)
				}
				var res *http.Response
				switch rt.method {
				case http.MethodGet:
					res, _ = cl.Get(path)
				case http.MethodPost:
					form := url.Values{}
					if !strings.HasPrefix(path, "/api/") && path != web.MCPPath {
						page := "/"
						if actor == "anonymous" {
							page = "/login"
						}
						form.Set("csrf", cl.CSRF(page))
					}
					res, _ = cl.Do(http.MethodPost, path, strings.NewReader(form.Encode()),
						http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
				default:
					res, _ = cl.Do(rt.method, path, nil, nil)
				}
				got, wantStatus := res.StatusCode, want.of(actor)
				toLogin := got == see && strings.HasPrefix(res.Header.Get("Location"), "/login")
				switch {
				case wantStatus == pass:
					if got == unau || got == no || got == gone || toLogin {
						t.Fatalf("status = %d (location %q), want the policy to let it through", got, res.Header.Get("Location"))
					}
				case got != wantStatus:
					t.Fatalf("status = %d, want %d", got, wantStatus)
				case got == see && actor == "anonymous" && !toLogin && rt.path != "/login" && !strings.HasPrefix(rt.path, "/api"):
					t.Fatalf("anonymous redirected to %q, want /login", res.Header.Get("Location"))
				}
			})
		}
		if rt.path == "/logout" {
			// Signing out ends every session of the account: sign in again.
			for _, u := range inventoryActors[1:] {
				clients[u] = f.Login(t, u)
			}
		}
	}
	for path := range routes {
		if !covered[path] {
			t.Errorf("expectation for %s matches no registered route", path)
		}
	}
}
