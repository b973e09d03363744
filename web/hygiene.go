package web

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mnemo-console/mnemo/auth"
	"github.com/mnemo-console/mnemo/governance"
)

// cleanForms refuses a posted form (URL-encoded or multipart; uploaded
// files are the import's to check) holding a field name or value that is not
// clean text in governance's sense: invalid UTF-8, or a control character
// other than tab and line breaks. The field is named, and no handler sees
// the request.
func cleanForms(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if r.Method != http.MethodPost {
			return next(c)
		}
		ct := r.Header.Get(echo.HeaderContentType)
		if !strings.HasPrefix(ct, echo.MIMEApplicationForm) && !strings.HasPrefix(ct, echo.MIMEMultipartForm) {
			return next(c)
		}
		// A request whose token came in a header is parsed here first,
		// its files on disk as the CSRF check would have put them.
		if err := auth.ParseForm(r); err != nil {
			return err
		}
		form, err := c.FormParams()
		if err != nil {
			return err
		}
		names := make([]string, 0, len(form))
		for name := range form {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if p := governance.CheckText(name); p != "" {
				return governance.Errorf(governance.EINVALID, "A form field name %s.", p)
			}
			for _, v := range form[name] {
				if p := governance.CheckText(v); p != "" {
					return governance.Errorf(governance.EINVALID, "The field %q %s.", name, p)
				}
			}
		}
		return next(c)
	}
}
