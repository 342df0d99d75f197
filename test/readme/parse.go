/*
Copyright The Stencil Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

// Package readme runs the README's shell blocks as a newcomer would type them, so that the
// README cannot drift from what the code does. A fenced block's info string says who runs it:
//
//	```sh            the local tour: run in order by TestReadmeTour (this package, make tour)
//	                 against the server of the `sh server` block, with no cluster
//	```sh cluster    needs a cluster of your own (~/.kube/config): run by test/e2e's
//	                 TestReadmeTour, in order with every `sh` block, against the e2e cluster
//	```sh server     the one command that starts the local server (make run ...); the tests
//	                 run it with a free port and their own data directory
//	```sh manual     not run by any test (make test, browsers, image pushes)
//
// Any other shell fence (bash, shell, console, zsh, or sh with another word) is an error, so
// that a new block is either run or says why not. Every block of another language (yaml, json,
// text) is prose.
//
// In a run block, each command (with its continuation lines and here-documents) may be
// followed directly, with no blank line between, by full-line comments: its documented
// output, which the test compares with what the command printed, stdout and stderr together as
// a terminal shows them (see Match for the tolerances). A command exits 0 unless it documents
// its output, which is then an error message. A comment after a blank line is prose.
package readme

import (
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Kind says who runs a block.
type Kind string

// The kinds of shell blocks.
const (
	// Local blocks are the local-mode tour.
	Local Kind = "sh"
	// Cluster blocks need a cluster of the reader's own.
	Cluster Kind = "sh cluster"
	// Server is the block that starts the local server.
	Server Kind = "sh server"
	// Manual blocks are run by nobody.
	Manual Kind = "sh manual"
)

// Block is one fenced shell block.
type Block struct {
	Kind Kind
	// Line is the line of the opening fence, counted from 1.
	Line     int
	Commands []Command
}

// Command is one command of a block and the output the README documents for it.
type Command struct {
	// Line is the command's first line in the file.
	Line int
	// Text is the command as written, continuation lines and here-documents included.
	Text string
	// Want are the lines of the comments that follow the command, without "# "; nil when it
	// documents no output.
	Want []string
}

// shellFences are the info strings that name a shell; only sh with a known word may be used.
var shellFences = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true, "zsh": true, "shell-session": true}

// heredoc finds a here-document's delimiter: <<WORD, <<'WORD', <<"WORD", <<-WORD.
var heredoc = regexp.MustCompile(`<<-?\s*['"]?([A-Za-z_][A-Za-z0-9_]*)['"]?`)

// ParseFile reads the shell blocks of a Markdown file.
func ParseFile(path string) ([]Block, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(string(data))
}

// Parse returns the shell blocks of a Markdown document, in order; an unknown shell fence or
// an unterminated block or here-document is an error naming its line.
func Parse(doc string) ([]Block, error) {
	lines := strings.Split(doc, "\n")
	var blocks []Block
	for i := 0; i < len(lines); i++ {
		fence, info, ok := openingFence(lines[i])
		if !ok {
			continue
		}
		end := i + 1
		for end < len(lines) && strings.TrimSpace(lines[end]) != fence {
			end++
		}
		if end == len(lines) {
			return nil, fmt.Errorf("line %d: the code block is not closed", i+1)
		}
		words := strings.Fields(info)
		if len(words) == 0 || !shellFences[words[0]] {
			i = end
			continue
		}
		kind := Kind(strings.Join(words, " "))
		switch kind {
		case Local, Cluster, Server, Manual:
		default:
			return nil, fmt.Errorf("line %d: shell block %q: use sh (the local tour), sh cluster, sh server or sh manual", i+1, info)
		}
		commands, err := parseCommands(lines[i+1:end], i+2)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, Block{Kind: kind, Line: i + 1, Commands: commands})
		i = end
	}
	return blocks, nil
}

// openingFence recognises ``` or ~~~ (three or more) at the start of a line, and returns the
// fence that closes it and the info string.
func openingFence(line string) (fence, info string, ok bool) {
	for _, c := range []string{"`", "~"} {
		n := len(line) - len(strings.TrimLeft(line, c))
		if n >= 3 {
			return line[:n], strings.TrimSpace(line[n:]), true
		}
	}
	return "", "", false
}

// parseCommands splits a block's lines into commands and their documented output; first is
// the file's line number of lines[0].
func parseCommands(lines []string, first int) ([]Command, error) {
	var commands []Command
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue // blank, or prose in a comment
		}
		c := Command{Line: first + i}
		text := []string{lines[i]}
		// Continuation lines, then the bodies of the here-documents the command opens.
		for strings.HasSuffix(strings.TrimRight(text[len(text)-1], " "), `\`) && i+1 < len(lines) {
			i++
			text = append(text, lines[i])
		}
		for _, m := range heredoc.FindAllStringSubmatch(strings.Join(text, "\n"), -1) {
			for {
				i++
				if i == len(lines) {
					return nil, fmt.Errorf("line %d: the here-document %s is not closed", c.Line, m[1])
				}
				text = append(text, lines[i])
				if strings.TrimSpace(lines[i]) == m[1] {
					break
				}
			}
		}
		c.Text = strings.Join(text, "\n")
		for i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "#") {
			i++
			want := strings.TrimPrefix(strings.TrimSpace(lines[i]), "#")
			c.Want = append(c.Want, strings.TrimPrefix(want, " "))
		}
		commands = append(commands, c)
	}
	return commands, nil
}
