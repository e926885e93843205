#!/usr/bin/env bash
# Cuts a release: the published modules at VERSION (no -SNAPSHOT), with sources and Javadoc jars, POMs with
# the metadata Maven Central requires, .md5/.sha1/.sha256/.sha512 checksums and, when a key is configured,
# .asc signatures, deployed to a Maven repository and checked there. docs/RELEASING.md.
#
#   scripts/release.sh VERSION                 a release from the committed tree (clean, on a branch):
#                                              sets VERSION, dates CHANGES.md, deploys, checks the
#                                              repository, then commits "Release VERSION" and tags vVERSION
#   scripts/release.sh --next VERSION-SNAPSHOT the development version after a release: sets it and opens
#                                              a new "Unreleased" section in CHANGES.md, and commits
#   scripts/release.sh --check [VERSION]       CI: the same release build in a copy of the work tree
#                                              (target/release/source), deployed to a file repository;
#                                              commits and tags nothing. VERSION defaults to the project's
#                                              version without -SNAPSHOT
#
# Environment:
#   ETL_RELEASE_REPOSITORY  where to deploy: a URL (file:///…, https://…; for https the credentials of
#                           server id etl-release in ~/.m2/settings.xml). Default: the file repository
#                           target/release/repository, emptied first.
#   ETL_GPG_KEYNAME         the GPG key to sign with (its passphrase, if any, in MAVEN_GPG_PASSPHRASE).
#                           Unset: nothing is signed, and the script says so (Maven Central refuses
#                           unsigned artifacts; a file repository does not care).
#                           With --check, ETL_GPG_KEYNAME=throwaway signs with a key made for the run in
#                           a temporary GNUPGHOME (what CI does: the signing path is exercised and every
#                           .asc verified, with no secret anywhere).
#   ETL_RELEASE_MVN_ARGS    extra Maven arguments (not -o, which is dropped: maven-deploy-plugin refuses offline mode)
#
# The release build skips the tests (-DskipTests: it compiles them, and etl-avro-clickhouse's -tests.jar is
# published): release a commit whose CI passed. It does not install into ~/.m2, so a local Maven
# repository never holds release artifacts that were not resolved from a repository.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

log() { printf '%s [release] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() {
  log "$*"
  exit 1
}

RELEASE_DIR="$ROOT/target/release"
CHECKSUMS="SHA-512,SHA-256,SHA-1,MD5"
read -r -a EXTRA_ARGS <<<"${ETL_RELEASE_MVN_ARGS:-}"

# The reactor's version (the parent POM's own <version>, the first one after </parent>-less header).
project_version() {
  sed -n '/<parent>/,/<\/parent>/d; s#^  <version>\(.*\)</version>#\1#p' "$1/pom.xml" | head -n 1
}

# The modules a release publishes: those without <maven.deploy.skip>true</maven.deploy.skip>.
published_modules() {
  local dir="$1" module
  while IFS= read -r module; do
    grep -q '<maven.deploy.skip>true</maven.deploy.skip>' "$dir/$module/pom.xml" || printf '%s\n' "$module"
  done < <(sed -n 's#^ *<module>\(.*\)</module>#\1#p' "$dir/pom.xml")
}

artifact_id() {
  sed -n '/<parent>/,/<\/parent>/d; s#^  <artifactId>\(.*\)</artifactId>#\1#p' "$1" | head -n 1
}

packaging() {
  local p
  p="$(sed -n 's#^  <packaging>\(.*\)</packaging>#\1#p' "$1" | head -n 1)"
  printf '%s\n' "${p:-jar}"
}

# Where the tree names the project's version $1, as an extended regular expression with two groups around
# it: a POM's or a snippet's <version>, the consumer example's <etl.version>, Gradle's dev.etl:ARTIFACT:.
version_places() {
  printf '(<version>|<etl\\.version>|dev\\.etl:[a-z0-9-]+:)%s(</version>|</etl\\.version>|")' "${1//./\\.}"
}

# The Markdown files and POMs of the tree $1 that name version $2 there (not CHANGES.md, not build output).
names_of() {
  (cd "$1" && grep -rlE --include='*.md' --include='pom.xml' --exclude-dir=target --exclude-dir=.infra \
    --exclude-dir=.git -- "$(version_places "$2")" . | sed 's#^\./##' | grep -v '^docs/CHANGES.md$' || true)
}

# Sets version NEW wherever the tree names the project's version OLD (version_places): every pom.xml (the
# parent's <version>, each module's <parent> version, the BOM's, the consumer example's etl.version) and
# the dependency snippets of the Markdown files (not CHANGES.md, whose sections name the versions of their
# time). Fails if OLD is left in such a place, or if the parent's or the BOM's version is not NEW.
# docs/RELEASING.md says why not versions:set.
set_version() {
  local dir="$1" old="$2" new="$3" files left
  log "version $old -> $new in $dir"
  mapfile -t files < <(names_of "$dir" "$old")
  ((${#files[@]} > 0)) || die "no file of $dir names version $old"
  for f in "${files[@]}"; do
    sed -E -i "s#$(version_places "$old")#\\1$new\\2#g" "$dir/$f"
  done
  left="$(names_of "$dir" "$old" | paste -sd' ' -)"
  [[ -z "$left" ]] || die "version $old is still named in: $left"
  [[ "$(project_version "$dir")" == "$new" ]] || die "the parent POM's version is not $new"
  [[ "$(sed -n 's#^  <version>\(.*\)</version>#\1#p' "$dir/etl-dependencies/pom.xml")" == "$new" ]] ||
    die "etl-dependencies' version is not $new"
  log "version $new set in ${#files[@]} files"
}

# "## Unreleased (…)" becomes "## VERSION (DATE)".
date_changes() {
  local dir="$1" version="$2" date="$3" file="$1/docs/CHANGES.md"
  [[ "$(grep -c '^## Unreleased' "$file")" == 1 ]] || die "$file has no single '## Unreleased' section"
  sed -i "s/^## Unreleased.*$/## $version ($date)/" "$file"
}

# A new "## Unreleased (VERSION)" section above the newest release's.
open_changes() {
  local dir="$1" version="$2" file="$1/docs/CHANGES.md"
  grep -q '^## Unreleased' "$file" && die "$file already has an Unreleased section"
  awk -v v="$version" 'done == 0 && /^## / { print "## Unreleased (" v ")\n\nNothing yet.\n"; done = 1 } { print }' \
    "$file" >"$file.new" && mv "$file.new" "$file"
}

# Builds the published modules (and what they need) and deploys them to $2.
deploy() {
  local dir="$1" url="$2" modules sign=()
  modules="$(published_modules "$dir" | paste -sd, -)"
  if [[ -n "${ETL_GPG_KEYNAME:-}" ]]; then
    sign=(-Dgpg.keyname="$ETL_GPG_KEYNAME")
    log "signing with GPG key $ETL_GPG_KEYNAME"
  else
    log "NOT SIGNING: ETL_GPG_KEYNAME is not set. The repository gets no .asc signatures, which a file"
    log "repository does not need and Maven Central refuses (docs/RELEASING.md, 'Signing')."
  fi
  # maven-deploy-plugin refuses to run offline, even to a file repository
  local args=() a
  for a in "${EXTRA_ARGS[@]}"; do
    case "$a" in -o | --offline) log "deploying online (maven-deploy-plugin refuses offline mode)" ;; *) args+=("$a") ;; esac
  done
  log "building and deploying .,$modules to $url"
  (cd "$dir" && ./mvnw -B "${args[@]}" -Prelease deploy -pl ".,$modules" -am \
    -DskipTests -DskipITs -Dspotless.check.skip=true -Dmaven.install.skip=true \
    -Daether.checksums.algorithms="$CHECKSUMS" \
    -Detl.release.repository.url="$url" "${sign[@]}" </dev/null >&2)
}

# What Maven Central checks, on the deployed files: for every published module its POM (and for a jar the
# jar, -sources.jar and -javadoc.jar), each with verified .md5/.sha1/.sha256/.sha512 and, when signed, a
# verified .asc; POMs without -SNAPSHOT, with name and description, and with url, licenses, developers
# and scm of their own or inherited from etl-parent.
verify_repository() {
  local dir="$1" repo="$2" version="$3" signed="$4" module pom artifact base f ext tool element checked=0 artifacts=0
  local -a expected
  for module in . $(published_modules "$dir"); do
    pom="$dir/$module/pom.xml"
    artifact="$(artifact_id "$pom")"
    base="$repo/dev/etl/$artifact/$version/$artifact-$version"
    expected=("$base.pom")
    if [[ "$(packaging "$pom")" == jar ]]; then
      expected+=("$base.jar" "$base-sources.jar" "$base-javadoc.jar")
    fi
    for f in "${expected[@]}"; do
      [[ -s "$f" ]] || die "missing from the repository: $f"
      for ext in md5 sha1 sha256 sha512; do
        case "$ext" in md5) tool=md5sum ;; sha1) tool=sha1sum ;; sha256) tool=sha256sum ;; sha512) tool=sha512sum ;; esac
        [[ -s "$f.$ext" ]] || die "missing checksum: $f.$ext"
        [[ "$(cut -d' ' -f1 <"$f.$ext")" == "$("$tool" "$f" | cut -d' ' -f1)" ]] || die "wrong checksum: $f.$ext"
      done
      if [[ "$signed" == 1 ]]; then
        [[ -s "$f.asc" ]] || die "missing signature: $f.asc"
        gpg --batch --verify "$f.asc" "$f" 2>/dev/null || die "bad signature: $f.asc"
      fi
      checked=$((checked + 1))
    done
    grep -q -- '-SNAPSHOT' "$base.pom" && die "$base.pom names a -SNAPSHOT version"
    for element in name description; do
      grep -q "<${element}[ >]" "$base.pom" || die "$base.pom has no <$element>"
    done
    for element in url licenses developers scm; do
      grep -q "<${element}[ >]" "$base.pom" ||
        grep -q "<${element}[ >]" "$repo/dev/etl/etl-parent/$version/etl-parent-$version.pom" ||
        die "$base.pom has no <$element>, nor its parent"
    done
    artifacts=$((artifacts + 1))
  done
  log "repository checked: $artifacts artifacts, $checked files with verified checksums$([[ "$signed" == 1 ]] && echo ' and signatures')"
}

repository_url() {
  if [[ -n "${ETL_RELEASE_REPOSITORY:-}" ]]; then
    printf '%s\n' "$ETL_RELEASE_REPOSITORY"
  else
    rm -rf -- "$RELEASE_DIR/repository"
    mkdir -p "$RELEASE_DIR/repository"
    printf 'file://%s\n' "$RELEASE_DIR/repository"
  fi
}

check_version() {
  [[ "$1" =~ ^[0-9]+\.[0-9]+\.[0-9]+([.-][0-9A-Za-z.]+)?$ && "$1" != *SNAPSHOT* ]] ||
    die "'$1' is not a release version (MAJOR.MINOR.PATCH, optionally a qualifier; no -SNAPSHOT)"
}

require_clean_tree() {
  [[ -z "$(git status --porcelain --untracked-files=no)" ]] || die "the work tree has uncommitted changes"
  git symbolic-ref -q HEAD >/dev/null || die "HEAD is detached: release from a branch"
}

# The repository's files when it is a local one (file:), for the check; empty for a remote one.
local_repository_dir() {
  case "$1" in file://*) printf '%s\n' "${1#file://}" ;; file:*) printf '%s\n' "${1#file:}" ;; *) ;; esac
}

# ETL_GPG_KEYNAME=throwaway (--check only): a new signing key in a temporary GNUPGHOME, removed on exit.
throwaway_key() {
  command -v gpg >/dev/null || die "ETL_GPG_KEYNAME=throwaway needs gpg"
  GNUPGHOME="$(mktemp -d "${TMPDIR:-/tmp}/etl-release-gpg.XXXXXX")"
  export GNUPGHOME
  trap 'gpgconf --kill all >/dev/null 2>&1 || true; rm -rf -- "$GNUPGHOME"' EXIT
  gpg --batch --quiet --passphrase '' --quick-gen-key 'etl release check <release-check@etl.invalid>' ed25519 sign 1d \
    2>/dev/null
  ETL_GPG_KEYNAME="$(gpg --batch --list-secret-keys --with-colons 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }')"
  [[ -n "$ETL_GPG_KEYNAME" ]] || die "could not make a throwaway GPG key"
  log "throwaway GPG key $ETL_GPG_KEYNAME in $GNUPGHOME (a check, not a release)"
}

check_release() {
  local version="$1" old url src repo
  [[ "${ETL_GPG_KEYNAME:-}" == throwaway ]] && throwaway_key
  old="$(project_version "$ROOT")"
  [[ -n "$version" ]] || version="${old%-SNAPSHOT}"
  check_version "$version"
  src="$RELEASE_DIR/source"
  log "copying the work tree to $src"
  rm -rf -- "$src"
  mkdir -p "$src"
  # tracked and untracked files that are not ignored, as they are in the work tree
  git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
    [[ -e "$f" ]] && printf '%s\0' "$f"
  done | tar --null -T - -cf - | tar -xf - -C "$src"
  set_version "$src" "$old" "$version"
  date_changes "$src" "$version" "$(date -u +%F)"
  url="$(repository_url)"
  deploy "$src" "$url"
  repo="$(local_repository_dir "$url")"
  if [[ -n "$repo" ]]; then
    verify_repository "$src" "$repo" "$version" "$([[ -n "${ETL_GPG_KEYNAME:-}" ]] && echo 1 || echo 0)"
  fi
  log "release $version built and deployed to $url (check only: nothing committed or tagged)"
  printf '%s\n' "$url"
}

release() {
  local version="$1" old url repo
  check_version "$version"
  [[ "${ETL_GPG_KEYNAME:-}" != throwaway ]] || die "ETL_GPG_KEYNAME=throwaway is for --check only"
  require_clean_tree
  git rev-parse -q --verify "refs/tags/v$version" >/dev/null && die "tag v$version exists"
  old="$(project_version "$ROOT")"
  [[ "$old" == *-SNAPSHOT ]] || die "the project's version $old is not a -SNAPSHOT"
  # on any failure the tree goes back to the commit it was (it was clean)
  trap 'status=$?; if ((status != 0)); then log "release failed: restoring the work tree"; git checkout -- .; fi' EXIT
  set_version "$ROOT" "$old" "$version"
  date_changes "$ROOT" "$version" "$(date -u +%F)"
  url="$(repository_url)"
  deploy "$ROOT" "$url"
  repo="$(local_repository_dir "$url")"
  if [[ -n "$repo" ]]; then
    verify_repository "$ROOT" "$repo" "$version" "$([[ -n "${ETL_GPG_KEYNAME:-}" ]] && echo 1 || echo 0)"
  fi
  trap - EXIT
  git commit -q -a -m "Release $version"
  git tag -a "v$version" -m "Release $version"
  log "committed 'Release $version' and tagged v$version; deployed to $url"
  log "next: scripts/release.sh --next <next version>-SNAPSHOT, then push the branch and the tag"
}

next_version() {
  local version="$1" old
  [[ "$version" == *-SNAPSHOT ]] || die "'$version' is not a -SNAPSHOT version"
  require_clean_tree
  old="$(project_version "$ROOT")"
  set_version "$ROOT" "$old" "$version"
  open_changes "$ROOT" "$version"
  git commit -q -a -m "Next development version: $version"
  log "committed 'Next development version: $version'"
}

case "${1:-}" in
  --check) check_release "${2:-}" ;;
  --next) [[ $# == 2 ]] || die "usage: scripts/release.sh --next VERSION-SNAPSHOT"; next_version "$2" ;;
  -h | --help | '') sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' ;;
  -*) die "unknown option $1 (see scripts/release.sh --help)" ;;
  *) [[ $# == 1 ]] || die "usage: scripts/release.sh VERSION"; release "$1" ;;
esac
