// Package shapes holds the secret shapes vibe's privacy tests write through
// Scrub and through the real hook path: each a text as an agent would send
// it, with the part that must never reach the disk. The values are built
// from repeated fragments, so no real credential is in the repository (and
// secret scanners are not woken by it). Tests only.
package shapes

import "strings"

// Shape is one secret in its context.
type Shape struct {
	Name   string
	Text   string // as it appears in a command, a file or a prompt
	Secret string // what must not be stored (a distinctive part of it)
}

func rep(s string, n int) string { return strings.Repeat(s, n)[:n] }

const (
	alnum = "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ"
	hexd  = "0123456789abcdef"
)

// All returns the shapes, at least one per rule of privacy plus the
// private-tag variants.
func All() []Shape {
	gh := rep(alnum, 36)
	return []Shape{
		{"private tag", "keep <private>patient 42 is Ana Lopez</private> this", "Ana Lopez"},
		{"private tag with reason", `see <private reason="PHI">Ana Lopez, born 1971</private> end`, "born 1971"},
		{"private tag with blanks", "x < private >Ana Lopez lives at 5 Elm St</ private > y", "5 Elm St"},
		{"private tag upper case", "x <PRIVATE>Ana Lopez MRN 99812</PRIVATE> y", "MRN 99812"},
		{"private tag unclosed", "notes <Private class='x'>MRN 77123 and the rest", "MRN 77123"},
		{"pem private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA" + rep(alnum, 40) + "\n-----END RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEA"},
		{"openssh private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA" + rep(alnum, 30) + "\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNzaC1rZXktdjEAAAA"},
		{"aws access key id", "aws configure set aws_access_key_id AKIA" + rep("QWERTYUIOPASDFGH", 16), "AKIAQWERTYUIOPASDFGH"},
		{"aws secret access key", "export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/" + rep(alnum, 18), "wJalrXUtnFEMI/K7MDENG"},
		{"github pat", "git push https://github.com/o/r.git # token ghp_" + gh, "ghp_" + gh[:20]},
		{"github app token", "GH=ghs_" + gh + " gh api /user", "ghs_" + gh[:20]},
		{"github fine-grained pat", "github_pat_11ABCDEFG0" + rep(alnum, 60), "github_pat_11ABCDEFG0"},
		{"gitlab pat", "curl --header 'PRIVATE-TOKEN: glpat-" + rep(alnum, 20) + "' https://gitlab.com/api/v4/projects", "glpat-" + rep(alnum, 20)},
		{"gitlab runner token", "gitlab-runner register --token glrt-" + rep(alnum, 24), "glrt-" + rep(alnum, 24)},
		{"hugging face token", "huggingface-cli login --token hf_" + rep("QwErTyUiOpAsDfGhJkLzXcVbNm", 34), "hf_QwErTyUiOpAsDfGhJk"},
		{"hugging face env", "HF_TOKEN=hf_" + rep("ZyXwVuTsRqPoNmLkJiHgFeDcBa", 34) + " python train.py", "hf_ZyXwVuTsRqPoNmLkJi"},
		{"stripe live secret key", `stripe.api_key = "sk_live_` + rep("4eC39HqLyjWDarjtT1zdp7dc", 24) + `"`, "4eC39HqLyjWDarjtT1zdp7dc"},
		{"stripe restricted key", "STRIPE=rk_live_" + rep("51HqLyjWDarjtT1zdp7dcX", 30), "rk_live_51HqLyjWD"},
		{"stripe webhook secret", "whsec_" + rep("MfKQ9r8GKYqrTwjUPD8ILPZI", 32), "whsec_MfKQ9r8GKYqrTwj"},
		{"slack bot token", "SLACK=xoxb-" + rep("1234567890", 12) + "-" + rep("AbCdEfGhIjKl", 24), "xoxb-1234567890"},
		{"slack webhook", "curl -X POST https://hooks.slack.com/services/T0000/B0000/" + rep("XXXXXXXXYYYYYYYY", 24), "hooks.slack.com/services/T0000/B0000/XXXXXXXX"},
		{"anthropic key", "ANTHROPIC_API_KEY=sk-ant-api03-" + rep(alnum, 40), "sk-ant-api03-" + rep(alnum, 20)},
		{"openai project key", `client = OpenAI(api_key="sk-proj-` + rep(alnum, 48) + `")`, "sk-proj-" + rep(alnum, 20)},
		{"google api key", "https://maps.googleapis.com/maps/api?key=AIza" + rep("SyD-9tSrke72PouQMnMX", 35), "AIzaSyD-9tSrke72PouQ"},
		{"jwt", "Cookie: session=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "dozjgNryP4J3jVmNHl0w5N"},
		{"npm token", "//registry.npmjs.org/:_authToken=npm_" + rep(alnum, 36), "npm_" + rep(alnum, 20)},
		{"pypi token", "twine upload -p pypi-AgEIcHlwaS5vcmc" + rep(alnum, 60), "pypi-AgEIcHlwaS5vcmc" + rep(alnum, 10)},
		{"sendgrid key", "SG." + rep(alnum, 22) + "." + rep("ZyXwVuTsRq", 43), "SG." + rep(alnum, 22)},
		{"twilio api key", "twilio api:core --api-key SK" + rep(hexd, 32), "SK" + rep(hexd, 32)},
		{"mailgun key", "curl -s --user api:key-" + rep(hexd, 32) + " https://api.mailgun.net", "key-" + rep(hexd, 32)},
		{"shopify token", "X-Shopify-Access-Token: shpat_" + rep(hexd, 32), "shpat_" + rep(hexd, 32)},
		{"digitalocean token", "doctl auth init -t dop_v1_" + rep(hexd, 64), "dop_v1_" + rep(hexd, 30)},
		{"databricks token", "DATABRICKS_HOST=x dapi" + rep(hexd, 32), "dapi" + rep(hexd, 32)},
		{"age secret key", "AGE-SECRET-KEY-1" + rep("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58), "AGE-SECRET-KEY-1QPZRY9X8GF2"},
		{"vault token", "VAULT=hvs." + rep(alnum, 90), "hvs." + rep(alnum, 30)},
		{"grafana service account", "glsa_" + rep(alnum, 32) + "_" + rep(hexd, 8), "glsa_" + rep(alnum, 32)},
		{"telegram bot token", "https://api.telegram.org/bot123456789:AAH" + rep(alnum, 32) + "/sendMessage", "123456789:AAH" + rep(alnum, 20)},
		{"notion token", "NOTION=secret_" + rep(alnum, 43), "secret_" + rep(alnum, 30)},
		{"replicate token", "r8_" + rep(alnum, 37), "r8_" + rep(alnum, 30)},
		{"groq key", "gsk_" + rep(alnum, 52), "gsk_" + rep(alnum, 40)},
		{"password in url", "git clone https://ana:Hunter2Secret99@example.org/r.git", "Hunter2Secret99"},
		{"database url", "DATABASE_URL=postgres://lab:Pg_pa55w0rd_x@db.local:5432/cohort", "Pg_pa55w0rd_x"},
		{"redis url without user", "redis-cli -u redis://:R3disPassw0rd@cache:6379", "R3disPassw0rd"},
		{"curl -u", "curl -u alice:S3cretPassw0rd https://api.example.org/data", "S3cretPassw0rd"},
		{"curl --user quoted", `curl --user "bob:Qu0tedPassw0rd" https://x`, "Qu0tedPassw0rd"},
		{"mysql -p", "mysql -h db -u root -pMyS3cretPW cohort < dump.sql", "MyS3cretPW"},
		{"mysqldump -p quoted", "mysqldump -u root -p'Dump#Pass99' cohort > out.sql", "Dump#Pass99"},
		{"sshpass", "sshpass -p 'SshPa55word' ssh lab@host", "SshPa55word"},
		{"docker login", "docker login -u ana -p D0ckerHubPass registry.example.org", "D0ckerHubPass"},
		{"password flag", "python sync.py --password Fl4gPassw0rd --host x", "Fl4gPassw0rd"},
		{"token flag", "gh auth login --with-token=Tok3nFlagValue99", "Tok3nFlagValue99"},
		{"netrc", "machine api.example.org login ana password N3trcPassw0rd", "N3trcPassw0rd"},
		{"bearer header", "curl -H 'Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0' https://x", "9f8e7d6c5b4a39281706f5e4d3c2b1a0"},
		{"basic header", "Authorization: Basic YWxpY2U6c2VjcmV0cGFzc3dvcmQ=", "YWxpY2U6c2VjcmV0cGFzc3dvcmQ"},
		{"env password", "PGPASSWORD=PgEnvPassw0rd psql -h db", "PgEnvPassw0rd"},
		{"json client secret", `{"client_secret": "cl13ntS3cretValue"}`, "cl13ntS3cretValue"},
		{"yaml api key", "api_key: yAmlAp1KeyValue42", "yAmlAp1KeyValue42"},
		{"azure storage connection", "DefaultEndpointsProtocol=https;AccountName=lab;AccountKey=" + rep(alnum, 40) + "==;", "AccountKey=" + rep(alnum, 20)},
	}
}
