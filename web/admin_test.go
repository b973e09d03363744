package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/web"
)

// signIn posts the login form and reports whether it signed in.
func signIn(t *testing.T, f *Fixture, username, pw string) (*Client, bool) {
	t.Helper()
	c := f.Anonymous(t)
	res, _ := c.PostForm("/login", "/login", url.Values{"username": {username}, "password": {pw}})
	return c, res.StatusCode == http.StatusSeeOther && res.Header.Get("Location") == "/"
}

func accountID(t *testing.T, f *Fixture, username string) int64 {
	t.Helper()
	a, err := f.Store.FindAccountByUsername(context.Background(), username)
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

func accountPath(id int64) string { return "/admin/accounts/" + strconv.FormatInt(id, 10) }

// TestAdminAccountCreate: the form needs the CSRF token; a created
// account's generated password is not in the POST's answer but on the page
// it redirects to, once: a refresh no longer shows it.
func TestAdminAccountCreate(t *testing.T) {
	f := NewFixture(t, web.Config{})
	admin := f.Login(t, Admin)

	res, _ := admin.PostRaw("/admin/accounts", url.Values{"username": {"lan"}})
	wantStatus(t, res, http.StatusForbidden)
	if _, err := f.Store.FindAccountByUsername(context.Background(), "lan"); governance.ErrorCode(err) != governance.ENOTFOUND {
		t.Fatal("a POST without the CSRF token created the account")
	}

	t.Run("Invalid", func(t *testing.T) {
		res, doc := admin.PostForm("/admin/accounts", "/admin/accounts", url.Values{"username": {"two words"}, "subject": {"family-x"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		if doc.Find(testid("form-error")).Length() != 1 {
			t.Fatal("no form error")
		}
		if v, _ := doc.Find(testid("account-username")).Attr("value"); v != "two words" {
			t.Fatalf("the typed username is lost: %q", v)
		}
		res, doc = admin.PostForm("/admin/accounts", "/admin/accounts", url.Values{"username": {"rita"}})
		wantStatus(t, res, http.StatusUnprocessableEntity)
		if !strings.Contains(doc.Find(testid("form-error")).Text(), "conflicts") {
			t.Fatalf("duplicate username: %q", doc.Find(testid("form-error")).Text())
		}
	})

	res, body := admin.Do(http.MethodPost, "/admin/accounts", strings.NewReader(url.Values{
		"csrf": {admin.CSRF("/admin/accounts")}, "username": {"lan"}, "project": {strconv.FormatInt(f.Travel.ID, 10)},
		"role": {"member"}, "subject": {"family-lan"}}.Encode()), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}})
	wantStatus(t, res, http.StatusSeeOther)
	id := accountID(t, f, "lan")
	if loc := res.Header.Get("Location"); loc != accountPath(id) {
		t.Fatalf("redirect to %q, want the account page", loc)
	}

	res, doc := admin.Get(accountPath(id))
	wantStatus(t, res, http.StatusOK)
	if cc := res.Header.Get("Cache-Control"); !strings.Contains(cc, "no-store") {
		t.Fatalf("Cache-Control = %q", cc)
	}
	pw := strings.TrimSpace(doc.Find(testid("account-password-value")).Text())
	if len(pw) < 16 {
		t.Fatalf("password shown = %q", pw)
	}
	if strings.Contains(body, pw) {
		t.Fatal("the POST's answer holds the password")
	}
	if doc.Find(testid("membership-row")).Length() != 1 {
		t.Fatal("the first membership is not listed")
	}

	res, doc = admin.Get(accountPath(id))
	wantStatus(t, res, http.StatusOK)
	if doc.Find(testid("account-password")).Length() != 0 {
		t.Fatal("a refresh shows the password again")
	}
	if _, ok := signIn(t, f, "lan", pw); !ok {
		t.Fatal("the shown password does not sign in")
	}
	// A member with the new account sees their subject's memory.
	lan, _ := signIn(t, f, "lan", pw)
	res, _ = lan.Get("/projects/travel-agent/sessions")
	wantStatus(t, res, http.StatusOK)
	res, _ = lan.Get("/admin/accounts")
	wantStatus(t, res, http.StatusForbidden)
}

// TestAdminAccountPasswordAndDisable: a new password and disabling both
// end the account's sessions; a disabled account cannot sign in until it
// is enabled again.
func TestAdminAccountPasswordAndDisable(t *testing.T) {
	f := NewFixture(t, web.Config{})
	admin := f.Login(t, Admin)
	mia := f.Login(t, MemberLi)
	id := accountPath(accountID(t, f, MemberLi))

	res, _ := admin.PostForm(id, id+"/password", url.Values{})
	wantStatus(t, res, http.StatusSeeOther)
	_, doc := admin.Get(id)
	pw := strings.TrimSpace(doc.Find(testid("account-password-value")).Text())
	if pw == "" {
		t.Fatal("no new password shown")
	}
	res, _ = mia.Get("/me")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
		t.Fatalf("the old session still works after a new password: %d", res.StatusCode)
	}
	if _, ok := signIn(t, f, MemberLi, password); ok {
		t.Fatal("the old password still signs in")
	}
	mia, ok := signIn(t, f, MemberLi, pw)
	if !ok {
		t.Fatal("the new password does not sign in")
	}

	res, _ = admin.PostForm(id, id+"/disable", url.Values{})
	wantStatus(t, res, http.StatusSeeOther)
	res, _ = mia.Get("/me")
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
		t.Fatalf("a disabled account's session still works: %d", res.StatusCode)
	}
	if _, ok := signIn(t, f, MemberLi, pw); ok {
		t.Fatal("a disabled account signs in")
	}
	_, doc = admin.Get(id)
	if doc.Find(testid("account-disabled")).Length() != 1 || doc.Find(testid("account-enable")).Length() != 1 {
		t.Fatal("the account page does not show the account disabled")
	}
	_, doc = admin.Get("/admin/accounts")
	if doc.Find(`[data-username="mia"] `+testid("account-disabled")).Length() != 1 {
		t.Fatal("the list does not show the account disabled")
	}

	res, _ = admin.PostForm(id, id+"/enable", url.Values{})
	wantStatus(t, res, http.StatusSeeOther)
	if _, ok := signIn(t, f, MemberLi, pw); !ok {
		t.Fatal("an enabled account cannot sign in")
	}
}

// TestAdminLastAdmin: the last administrator can be neither demoted nor
// disabled; the refusal comes back as a message on the account page, in
// the viewer's language.
func TestAdminLastAdmin(t *testing.T) {
	f := NewFixture(t, web.Config{})
	admin := f.Login(t, Admin)
	id := accountPath(accountID(t, f, Admin))

	_, doc := admin.Get(id)
	if doc.Find(testid("account-disable")).Length() != 0 {
		t.Fatal("the own account page offers to disable it")
	}
	res, _ := admin.PostForm(id, id+"/admin", url.Values{"admin": {"off"}})
	wantStatus(t, res, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != id {
		t.Fatalf("redirect to %q", loc)
	}
	res, doc = admin.Get(id, "Accept-Language", "zh-CN")
	wantStatus(t, res, http.StatusOK)
	if msg := doc.Find(".flash-error").Text(); !strings.Contains(msg, "最后一位管理员") {
		t.Fatalf("flash = %q, want the last-administrator refusal in Chinese", msg)
	}
	a, _ := f.Store.FindAccountByUsername(context.Background(), Admin)
	if !a.IsAdmin {
		t.Fatal("the last administrator was demoted")
	}
	res, _ = admin.PostForm(id, id+"/disable", url.Values{})
	wantStatus(t, res, http.StatusSeeOther)
	_, doc = admin.Get(id)
	if msg := doc.Find(".flash-error").Text(); !strings.Contains(msg, "own account") {
		t.Fatalf("flash = %q", msg)
	}

	// With a second administrator, the first may step down.
	rita := accountPath(accountID(t, f, TravelReviewer))
	res, _ = admin.PostForm(rita, rita+"/admin", url.Values{"admin": {"on"}})
	wantStatus(t, res, http.StatusSeeOther)
	res, _ = admin.PostForm(id, id+"/admin", url.Values{"admin": {"off"}})
	wantStatus(t, res, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/" {
		t.Fatalf("stepping down redirects to %q, want /", loc)
	}
	a, _ = f.Store.FindAccountByUsername(context.Background(), Admin)
	if a.IsAdmin {
		t.Fatal("the administrator could not step down beside another one")
	}
	res, _ = admin.Get("/admin/accounts")
	wantStatus(t, res, http.StatusForbidden)
}

func TestAdminMemberships(t *testing.T) {
	f := NewFixture(t, web.Config{})
	admin := f.Login(t, Admin)
	id := accountPath(accountID(t, f, ExpenseReviewer))
	travel := strconv.FormatInt(f.Travel.ID, 10)

	res, _ := admin.PostForm(id, id+"/memberships", url.Values{"project": {travel}, "role": {"member"}})
	wantStatus(t, res, http.StatusSeeOther)
	_, doc := admin.Get(id)
	if !strings.Contains(doc.Find(".flash-error").Text(), "subject") {
		t.Fatalf("a member without a subject: flash %q", doc.Find(".flash-error").Text())
	}
	res, _ = admin.PostForm(id, id+"/memberships", url.Values{"project": {travel}, "role": {"member"}, "subject": {"family-wang"}})
	wantStatus(t, res, http.StatusSeeOther)
	eve := f.Login(t, ExpenseReviewer)
	res, _ = eve.Get("/projects/travel-agent/sessions/sh-1")
	wantStatus(t, res, http.StatusOK)
	res, _ = eve.Get("/projects/travel-agent/sessions/bj-1")
	wantStatus(t, res, http.StatusNotFound)

	_, doc = admin.Get(id)
	if got := doc.Find(testid("membership-row")).Length(); got != 2 {
		t.Fatalf("%d memberships listed, want 2", got)
	}
	res, _ = admin.PostForm(id, id+"/memberships/"+travel+"/remove", url.Values{})
	wantStatus(t, res, http.StatusSeeOther)
	res, _ = eve.Get("/projects/travel-agent/sessions/sh-1")
	wantStatus(t, res, http.StatusForbidden)
	entries, _, err := f.Store.FindAudit(context.Background(), governance.AuditFilter{ObjectType: "account", ObjectID: ExpenseReviewer})
	if err != nil || len(entries) != 2 || entries[0].Actor != Admin {
		t.Fatalf("audit = %v, %v", entries, err)
	}
}

// TestAdminProjects: create (the slug is validated), rename and set the
// policy, then delete after a preview that counts what goes and a typed
// confirmation; the project is gone for everyone.
func TestAdminProjects(t *testing.T) {
	f := NewFixture(t, web.Config{})
	admin := f.Login(t, Admin)

	res, doc := admin.PostForm("/admin/projects", "/admin/projects", url.Values{"slug": {"Bad Slug"}, "name": {"x"}})
	wantStatus(t, res, http.StatusUnprocessableEntity)
	if doc.Find(testid("form-error")).Length() != 1 {
		t.Fatal("no form error for a bad slug")
	}
	res, _ = admin.PostForm("/admin/projects", "/admin/projects", url.Values{"slug": {"support-bot"}, "name": {"客服助手"}})
	wantStatus(t, res, http.StatusSeeOther)
	p, err := f.Store.FindProjectBySlug(context.Background(), "support-bot")
	if err != nil {
		t.Fatal(err)
	}
	page := "/admin/projects/" + strconv.FormatInt(p.ID, 10)
	if loc := res.Header.Get("Location"); loc != page {
		t.Fatalf("redirect to %q", loc)
	}
	res, _ = admin.PostForm(page, page, url.Values{"name": {"Support bot"}, "description": {"after-sales"}, "auto_activate": {"on"}})
	wantStatus(t, res, http.StatusSeeOther)
	p, _ = f.Store.FindProjectByID(context.Background(), p.ID)
	if p.Name != "Support bot" || !p.AutoActivate || p.Description != "after-sales" {
		t.Fatalf("project = %+v", p)
	}
	res, _ = admin.PostForm(page, page, url.Values{"name": {""}})
	wantStatus(t, res, http.StatusUnprocessableEntity)

	_, doc = admin.Get("/admin/projects")
	if doc.Find(`[data-slug="support-bot"]`).Length() != 1 || doc.Find(`[data-slug="travel-agent"]`).Length() != 1 {
		t.Fatal("the list lacks a project")
	}

	travel := "/admin/projects/" + strconv.FormatInt(f.Travel.ID, 10) + "/delete"
	res, doc = admin.Get(travel)
	wantStatus(t, res, http.StatusOK)
	if got := doc.Find(testid("count-events")).Text(); got != "10" {
		t.Fatalf("preview counts %s events, want 10", got)
	}
	if got := doc.Find(testid("count-memberships")).Text(); got != "3" {
		t.Fatalf("preview counts %s memberships, want 3", got)
	}
	res, doc = admin.PostForm(travel, travel, url.Values{"confirm": {"travel"}})
	wantStatus(t, res, http.StatusUnprocessableEntity)
	if doc.Find(testid("form-error")).Length() != 1 || doc.Find(testid("deletion-counts")).Length() != 1 {
		t.Fatal("a wrong confirmation does not show the preview with an error")
	}
	if _, err := f.Store.FindProjectByID(context.Background(), f.Travel.ID); err != nil {
		t.Fatal("a wrong confirmation deleted the project")
	}
	res, _ = admin.PostForm(travel, travel, url.Values{"confirm": {"travel-agent"}})
	wantStatus(t, res, http.StatusSeeOther)
	if loc := res.Header.Get("Location"); loc != "/admin/projects" {
		t.Fatalf("redirect to %q", loc)
	}
	_, doc = admin.Get("/admin/projects")
	if doc.Find(`[data-slug="travel-agent"]`).Length() != 0 {
		t.Fatal("the deleted project is still listed")
	}
	if !strings.Contains(doc.Find(".flash-success").Text(), "travel") && !strings.Contains(doc.Find(".flash-success").Text(), "Travel") {
		t.Fatalf("flash = %q", doc.Find(".flash-success").Text())
	}
	res, _ = f.Login(t, TravelReviewer).Get("/projects/travel-agent/sessions")
	wantStatus(t, res, http.StatusNotFound)
	res, _ = admin.Get(travel)
	wantStatus(t, res, http.StatusNotFound)
}

// TestAdminPagesInChinese: every administration page reads in Chinese; no
// message id shows through.
func TestAdminPagesInChinese(t *testing.T) {
	f := NewFixture(t, web.Config{})
	admin := f.Login(t, Admin)
	project := "/admin/projects/" + strconv.FormatInt(f.Travel.ID, 10)
	ids := regexp.MustCompile(`\b(admin|common|nav|dashboard)\.[a-z_.-]+\b`)
	for page, want := range map[string]string{
		"/admin/accounts":                      "新建账户",
		accountPath(accountID(t, f, MemberLi)): "分配项目角色",
		"/admin/projects":                      "新建项目",
		project:                                "删除该项目",
		project + "/delete":                    "请输入项目标识",
	} {
		res, doc := admin.Get(page, "Accept-Language", "zh-CN")
		wantStatus(t, res, http.StatusOK)
		text := doc.Find("main").Text()
		if !strings.Contains(text, want) {
			t.Errorf("%s: no %q in the page", page, want)
		}
		if m := ids.FindString(text); m != "" {
			t.Errorf("%s: message id %q shows through", page, m)
		}
	}
}
