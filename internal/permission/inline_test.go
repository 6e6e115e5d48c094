package permission

import (
	"reflect"
	"testing"
)

func TestInlineWrites(t *testing.T) {
	tests := []struct {
		lang, code   string
		targets      []string
		shell        []string
		unknown      bool
		unknownShell bool
	}{
		{"python", `open('a.txt','w').write('x')`, []string{"a.txt"}, nil, false, false},
		{"python", `open("a.txt", mode="a")`, []string{"a.txt"}, nil, false, false},
		{"python", `open('a.txt', 'rb').read()`, nil, nil, false, false},
		{"python", `open('a.txt').read()`, nil, nil, false, false},
		{"python", `open(p, 'w')`, nil, nil, true, false},
		{"python", `open(f'{d}/a.txt', 'w')`, nil, nil, true, false},
		{"python", `open('a.txt', m)`, []string{"a.txt"}, nil, false, false},
		{"python", `from pathlib import Path; Path('a.md').write_text('x')`, []string{"a.md"}, nil, false, false},
		{"python", `p.write_text('x')`, nil, nil, true, false},
		{"python", `df.to_csv('out.csv', index=False)`, []string{"out.csv"}, nil, false, false},
		{"python", `s = df.to_json()`, nil, nil, false, false},
		{"python", `df.to_parquet(path=out)`, nil, nil, true, false},
		{"python", `np.save('a.npy', x); plt.savefig("f.png")`, []string{"f.png", "a.npy", "a.npy"}, nil, false, false},
		{"python", `import shutil; shutil.move('a', 'b')`, []string{"a", "b"}, nil, false, false},
		{"python", `shutil.copy('a', 'b')`, []string{"b"}, nil, false, false},
		{"python", `os.rename('a', 'b'); os.remove('c')`, []string{"c", "a", "b"}, nil, false, false},
		{"python", `os.system('touch z')`, nil, []string{"touch z"}, false, false},
		{"python", `subprocess.run(['rm', '-f', 'z'])`, nil, []string{"'rm' '-f' 'z'"}, false, false},
		{"python", `subprocess.run(cmd, shell=True)`, nil, nil, false, true},
		{"python", `torch.save(model, 'm.pt')`, []string{"m.pt"}, nil, false, false},
		{"python", `model.save(out_dir)`, nil, nil, false, false},
		{"python", `s = 'a-b'.replace('-', '_'); os.unlink('x')`, []string{"x"}, nil, false, false},
		{"python", `print(open('x').read().count('open('))`, nil, nil, false, false},
		{"node", `require('fs').writeFileSync('a.txt', 'x')`, []string{"a.txt"}, nil, false, false},
		{"node", "fs.writeFileSync(`${d}/a.txt`, 'x')", nil, nil, true, false},
		{"node", `fs.copyFileSync('a', 'b')`, []string{"b"}, nil, false, false},
		{"node", `fs.readFileSync('a')`, nil, nil, false, false},
		{"node", `require('child_process').execSync('rm a')`, nil, []string{"rm a"}, false, false},
		{"perl", `open(my $f, '>', 'a.txt')`, []string{"a.txt"}, nil, false, false},
		{"perl", `open(F, ">>a.txt")`, []string{"a.txt"}, nil, false, false},
		{"perl", `open(my $f, '<', 'a.txt')`, nil, nil, false, false},
		{"perl", `open my $f, '>', "$dir/a.txt"`, nil, nil, true, false},
		{"perl", `unlink 'a.txt'; rename('b', 'c')`, []string{"a.txt", "b", "c"}, nil, false, false},
		{"perl", "system('rm x'); `touch y`", nil, []string{"rm x", "touch y"}, false, false},
		{"ruby", `File.write("a.txt", "x")`, []string{"a.txt"}, nil, false, false},
		{"ruby", `File.open("a.txt", "w") { |f| f.puts 1 }`, []string{"a.txt"}, nil, false, false},
		{"ruby", `File.open("a.txt") { |f| f.read }`, nil, nil, false, false},
		{"r", `write.csv(df, "a.csv", row.names = FALSE)`, []string{"a.csv"}, nil, false, false},
		{"r", `write.csv(df)`, nil, nil, false, false},
		{"r", `saveRDS(x, file = "a.rds")`, []string{"a.rds"}, nil, false, false},
		{"r", `cat("hi", file = "a.txt")`, []string{"a.txt"}, nil, false, false},
		{"r", `cat("hi\n")`, nil, nil, false, false},
		{"r", `ggsave("p.png", plot)`, []string{"p.png"}, nil, false, false},
		{"r", `system("rm a")`, nil, []string{"rm a"}, false, false},
		{"julia", `open("a.txt", "w") do io; write(io, 1); end`, []string{"a.txt"}, nil, false, false},
		{"php", `file_put_contents('a.txt', 'x');`, []string{"a.txt"}, nil, false, false},
	}
	for _, tc := range tests {
		got := inlineWrites(tc.lang, tc.code)
		if !reflect.DeepEqual(got.targets, tc.targets) || !reflect.DeepEqual(got.shell, tc.shell) ||
			got.unknown != tc.unknown || got.unknownShell != tc.unknownShell {
			t.Errorf("%s %s\ngot  %q shell=%q unknown=%v unknownShell=%v\nwant %q shell=%q unknown=%v unknownShell=%v",
				tc.lang, tc.code, got.targets, got.shell, got.unknown, got.unknownShell,
				tc.targets, tc.shell, tc.unknown, tc.unknownShell)
		}
	}
}
