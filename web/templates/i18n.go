package templates

import (
	"context"
	"strings"
	"time"

	"github.com/mnemo-console/mnemo/governance"
	"github.com/mnemo-console/mnemo/locale"
)

// Translation helpers. Every component has the request's ctx, which carries
// the viewer's localizer (locale.With); ids are keys of locale/catalog.

// t translates a message id; kv are name/value pairs for its fields.
func t(ctx context.Context, id string, kv ...any) string {
	return locale.From(ctx).T(id, kv...)
}

// tn translates a message with plural forms for count n ({{.Count}}).
func tn(ctx context.Context, id string, n int, kv ...any) string {
	return locale.From(ctx).N(id, n, kv...)
}

// label is the human label of an enumerated value, e.g.
// label(ctx, "rule_status", "active").
func label[S ~string](ctx context.Context, kind string, value S) string {
	return locale.From(ctx).Enum(kind, string(value))
}

func lang(ctx context.Context) string { return locale.From(ctx).Lang() }

func num(ctx context.Context, n int) string { return locale.From(ctx).Number(n) }

func dateTime(ctx context.Context, tm time.Time) string { return locale.From(ctx).DateTime(tm) }

func date(ctx context.Context, tm time.Time) string { return locale.From(ctx).Date(tm) }

// languages are the choices of the language switch.
func languages() []string { return locale.Languages }

func languageName(code string) string { return locale.LanguageName(code) }

// phrase translates English text written by Go code that does not carry a
// Text yet, reading a format's values back
// (locale.Localizer.PhraseFormatted): only a skill version's reason, and
// through evalText an eval case's problems that their kind keeps as
// English only (docs/i18n.md).
func phrase(ctx context.Context, english string) string {
	return locale.From(ctx).PhraseFormatted(english)
}

// texts translates each sentence and joins them with sep.
func texts(ctx context.Context, ts []governance.Text, sep string) string {
	out := make([]string, len(ts))
	for i, s := range ts {
		out[i] = text(ctx, s)
	}
	return strings.Join(out, sep)
}

// text translates a sentence kept as its message id and values (a field
// error, a reason, a stored problem). A Text without values that no
// catalog holds (a row stored before it was kept as a Text) is shown as
// it is.
func text(ctx context.Context, s governance.Text) string {
	return locale.From(ctx).Text(s)
}

// evalText is text for an eval case's reason and problems: a problem
// whose kind keeps it as English only (sequence, skill, A/B cases) goes
// through phrase until its kind keeps the format.
func evalText(ctx context.Context, s governance.Text) string {
	out := locale.From(ctx).Text(s)
	if len(s.Args) == 0 && len(s.Lines) == 0 && out == s.ID {
		return phrase(ctx, s.ID)
	}
	return out
}
