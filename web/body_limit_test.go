package web_test

import (
	"bufio"
	"bytes"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mnemo-console/mnemo/web"
)

// multipartBody is a form with a csrf field and a file of n bytes.
func multipartBody(t *testing.T, csrf string, n int) (string, []byte) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	w.WriteField("csrf", csrf)
	w.WriteField("project", "travel-agent")
	fw, _ := w.CreateFormFile("file", "big.jsonl")
	fw.Write(bytes.Repeat([]byte("x"), n))
	w.Close()
	return w.FormDataContentType(), b.Bytes()
}

// TestBodyLimitsByRouteClass: a body's limit is decided by the route and
// the caller before the body is read: a stranger may send a sign-in form
// (64 KiB), an account a form (1 MiB), an administrator an import and an
// account an eval suite (their upload limits); larger bodies are refused
// with 413, declared or not.
func TestBodyLimitsByRouteClass(t *testing.T) {
	f := NewFixture(t, web.Config{})
	post := func(c *Client, page, path, ctype string, body []byte, chunked bool) int {
		t.Helper()
		var r io.Reader = bytes.NewReader(body)
		if chunked {
			r = io.MultiReader(r) // no length: sent chunked
		}
		h := http.Header{"Content-Type": {ctype}, "Origin": {f.Server.URL}}
		if page != "" {
			h.Set("X-CSRF-Token", c.CSRF(page))
		}
		res, _ := c.Do(http.MethodPost, path, r, h)
		return res.StatusCode
	}
	form := func(n int) []byte {
		return []byte(url.Values{"username": {"x"}, "password": {strings.Repeat("p", n)}}.Encode())
	}
	anon := f.Anonymous(t)
	for _, chunked := range []bool{false, true} {
		if got := post(anon, "/login", "/login", "application/x-www-form-urlencoded", form(200<<10), chunked); got != http.StatusRequestEntityTooLarge {
			t.Errorf("a stranger's 200 KiB sign-in form (chunked %v) = %d, want 413", chunked, got)
		}
	}
	if got := post(anon, "/login", "/login", "application/x-www-form-urlencoded", form(1<<10), false); got == http.StatusRequestEntityTooLarge {
		t.Errorf("a small sign-in form = %d", got)
	}

	member, admin, reviewer := f.Login(t, MemberLi), f.Login(t, Admin), f.Login(t, TravelReviewer)
	ctype, big := multipartBody(t, member.CSRF("/"), 2<<20)
	for _, chunked := range []bool{false, true} {
		if got := post(member, "", "/admin/import", ctype, big, chunked); got != http.StatusRequestEntityTooLarge {
			t.Errorf("a member's 2 MiB import (chunked %v) = %d, want 413 before anything is parsed", chunked, got)
		}
	}
	if got := post(member, "/", "/rules/1/edit", "application/x-www-form-urlencoded", form(2<<20), false); got != http.StatusRequestEntityTooLarge {
		t.Errorf("a member's 2 MiB form = %d, want 413", got)
	}
	ctype, big = multipartBody(t, admin.CSRF("/admin/import"), 2<<20)
	if got := post(admin, "", "/admin/import", ctype, big, false); got == http.StatusRequestEntityTooLarge {
		t.Errorf("an administrator's 2 MiB import = %d, want it read", got)
	}
	ctype, big = multipartBody(t, reviewer.CSRF("/evals"), 2<<20)
	if got := post(reviewer, "", "/evals/suites", ctype, big, false); got == http.StatusRequestEntityTooLarge {
		t.Errorf("an account's 2 MiB eval suite = %d, want it read", got)
	}
}

// TestSlowBodyIsCut: a body that does not arrive within the route class's
// time is cut, so it cannot hold a connection; whole bodies sent on a kept
// connection later than that are read as usual.
func TestSlowBodyIsCut(t *testing.T) {
	f := newFixtureWith(t, web.Config{BodyTimeout: 200 * time.Millisecond}, nil)
	conn, err := net.Dial("tcp", strings.TrimPrefix(f.Server.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "POST /login HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nusername=a"); err != nil {
		t.Fatal(err)
	}
	answered := make(chan error, 1)
	go func() {
		_, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err == nil {
			_, err = conn.Read(make([]byte, 1))
		}
		answered <- err
	}()
	select {
	case err := <-answered:
		if err == nil {
			t.Fatal("the connection stayed open")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a body that never came held the connection for 30 s")
	}

	anon := f.Anonymous(t)
	for i := range 3 {
		if i > 0 {
			time.Sleep(300 * time.Millisecond) // past the body time, on the kept connection
		}
		res, _ := anon.PostForm("/login", "/login", url.Values{"username": {Admin}, "password": {"wrong"}})
		if res.StatusCode == http.StatusRequestEntityTooLarge || res.StatusCode >= 500 {
			t.Errorf("sign-in %d = %d", i, res.StatusCode)
		}
	}
}
