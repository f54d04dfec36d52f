package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestDocs_links: every relative link of README.md, the docs pages and
// api/README.md names a file that exists, and, when it has an anchor into a
// markdown page, a heading of that page.
func TestDocs_links(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../../README.md", "../../api/README.md")
	if len(pages) < 10 {
		t.Fatalf("found %d pages, want README.md, api/README.md and the docs pages", len(pages))
	}
	anchors := map[string][]string{}
	headingsOf := func(path string) []string {
		if _, ok := anchors[path]; !ok {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			anchors[path] = headingAnchors(string(b))
		}
		return anchors[path]
	}
	links := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, link := range markdownLinks(string(b)) {
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			links++
			target, anchor, _ := strings.Cut(link, "#")
			path := page
			if target != "" {
				path = filepath.Join(filepath.Dir(page), filepath.FromSlash(target))
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: link %q: %v", page, link, err)
					continue
				}
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !slices.Contains(headingsOf(path), anchor) {
				t.Errorf("%s: link %q: %s has no heading with the anchor #%s", page, link, path, anchor)
			}
		}
	}
	if links < 50 {
		t.Errorf("found %d relative links, want the docs' many", links)
	}
}

// TestDocs_noMachinePaths: no page names a path of the machine it was
// written on (under /work, /root, /home or /Users): a reader has the
// repository, not that machine. Paths under /tmp in commands are the
// reader's own.
func TestDocs_noMachinePaths(t *testing.T) {
	pages, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "../../README.md", "../../api/README.md")
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := machinePath.FindString(line); m != "" {
				t.Errorf("%s:%d names a path of a build machine (%s...): %s", page, i+1, strings.TrimSpace(m), line)
			}
		}
	}
	if !machinePath.MatchString("on 2 cores (/work/.library/env/machines/go.md describes the machine)") {
		t.Error("machinePath misses the path it is there for")
	}
}

// TestDocs_linkParsers checks the parsers of TestDocs_links on a fixed
// text, so that a parser that finds nothing cannot pass it.
func TestDocs_linkParsers(t *testing.T) {
	text := "# Title\n\nSee [a](a.md#x-y), ![img](p.png) and [web](https://e.x).\n" +
		"`[not](code.md)`\n\n```\n[not](block.md)\n## Not a heading\n```\n\n" +
		"## `indexer serve`\n### Applications with `@osdk/client`\n## Signals, exit codes and the data dir\n## Twice\n## Twice\n"
	if got, want := markdownLinks(text), []string{"a.md#x-y", "p.png", "https://e.x"}; !slices.Equal(got, want) {
		t.Errorf("markdownLinks = %q, want %q", got, want)
	}
	want := []string{"title", "indexer-serve", "applications-with-osdkclient", "signals-exit-codes-and-the-data-dir", "twice", "twice-1"}
	if got := headingAnchors(text); !slices.Equal(got, want) {
		t.Errorf("headingAnchors = %q, want %q", got, want)
	}
}

var (
	machinePath  = regexp.MustCompile("(^|[\\s(`\"])/(work|root|home|Users)/")
	markdownLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	inlineCode   = regexp.MustCompile("`[^`\n]*`")
)

// markdownLinks returns the targets of the links and images of a markdown
// text, outside code blocks and code spans.
func markdownLinks(text string) []string {
	var links []string
	for _, line := range proseLines(text) {
		for _, m := range markdownLink.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
			links = append(links, m[1])
		}
	}
	return links
}

// headingAnchors returns the anchors GitHub gives the headings of a
// markdown text: lower case, punctuation dropped, spaces as hyphens, and
// -1, -2, ... after a repeated one.
func headingAnchors(text string) []string {
	var anchors []string
	seen := map[string]int{}
	for _, line := range proseLines(text) {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		heading := strings.TrimLeft(line, "#")
		if !strings.HasPrefix(heading, " ") {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		anchor := b.String()
		if n := seen[anchor]; n > 0 {
			seen[anchor]++
			anchor += "-" + strconv.Itoa(n)
		} else {
			seen[anchor] = 1
		}
		anchors = append(anchors, anchor)
	}
	return anchors
}

// proseLines returns the lines of a markdown text outside fenced code
// blocks.
func proseLines(text string) []string {
	var lines []string
	fenced := false
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			lines = append(lines, line)
		}
	}
	return lines
}

// docSection returns the text of a docs page from the heading line to the
// next heading of the same or a higher level.
func docSection(t *testing.T, path, heading string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s has no heading %q", path, heading)
	}
	level, _, _ := strings.Cut(heading, " ")
	for prefix := "#"; len(prefix) <= len(level); prefix += "#" {
		section, _, _ = strings.Cut(section, "\n"+prefix+" ")
	}
	return section
}
