package heuristic

import "testing"

// A shell check is named by its launcher chain, its program and the
// program's subcommand: runs of one check with other arguments are one
// check, and two subcommands of one program are two.
func TestCheckOf(t *testing.T) {
	for cmd, want := range map[string]string{
		"python manage.py migrate":                       "python manage.py migrate",
		"python manage.py test shop.tests":               "python manage.py test",
		"python3 -m pytest -q tests/test_api.py":         "python3 -m pytest",
		"npx jest src/cart.test.ts":                      "npx jest",
		"npx --yes eslint src":                           "npx eslint",
		"uv run pytest tests/test_client.py":             "uv run pytest",
		"bundle exec rspec spec/models":                  "bundle exec rspec",
		"poetry run alembic upgrade head":                "poetry run alembic upgrade",
		"node scripts/seed.js --reset":                   "node seed.js",
		"cd web && npm run build -- --mode=prod | tee l": "npm run build",
		"bin/rails db:migrate RAILS_ENV=test":            "rails db:migrate",
		"./deploy.sh staging":                            "deploy.sh",
		"/usr/bin/python3 /home/ana/app/manage.py check": "python3 manage.py check",
		"CI=1 go test ./...":                             "go test",
		"docker compose up -d api":                       "docker compose up",
		"pytest tests -q":                                "pytest",
		"curl -fsS http://localhost:3000/health":         "curl",
		"bash -c 'npm test'":                             "bash",
	} {
		if got := program(cmd); got != want {
			t.Errorf("program(%q) = %q, want %q", cmd, got, want)
		}
	}
}
