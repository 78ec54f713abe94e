#!/usr/bin/env bash
# Remakes docs/images/console.png: signs in to a running local mode as dev/dev in headless Chromium, creates
# a conversation on demo/dev, sends one message, waits for its turn to end and photographs the page.
# Start local mode with the Node worker first, on a fresh ./data (move yours aside) so that the picture
# shows one conversation and the usual paths:
#   ./mvnw spring-boot:run
#   scripts/console-screenshot.sh [base URL, default http://127.0.0.1:8080] [output file]
# Needs chromium, chromium-driver, curl and jq. It drives chromedriver's WebDriver HTTP API with curl.
set -euo pipefail
app=${1:-http://127.0.0.1:8080}
out=${2:-docs/images/console.png}
title=${TITLE:-Run the tests}
text=${TEXT:-'Run the tests [[sim:tool_use=Bash {"command":"pwd && git log --oneline && npm test --silent"}]]'}
port=${CHROMEDRIVER_PORT:-9515}

chromedriver --port="$port" >/dev/null 2>&1 &
driver_pid=$!
driver=http://127.0.0.1:$port
session=
trap '[ -n "$session" ] && curl -s -X DELETE "$driver/session/$session" >/dev/null; kill $driver_pid 2>/dev/null' EXIT
for _ in $(seq 1 50); do curl -sf "$driver/status" >/dev/null && break; sleep 0.2; done

# The window is tall enough for the whole turn; the layout is always a few pixels taller than the window.
session=$(curl -s "$driver/session" -d '{"capabilities":{"alwaysMatch":{"goog:chromeOptions":{
  "binary":"/usr/bin/chromium","args":["--headless","--no-sandbox","--disable-gpu",
  "--disable-background-networking","--disable-component-update","--disable-sync","--no-first-run",
  "--disable-dev-shm-usage","--window-size=1280,1152"]}}}}' | jq -r .value.sessionId)

post() { curl -s "$driver/session/$session/$1" -H 'Content-Type: application/json' -d "$2"; }
script() { post execute/sync "$(jq -nc --arg s "$1" '{script: $s, args: []}')" | jq -r .value; }
element() { # waits for a CSS selector, prints the element's id
  for _ in $(seq 1 100); do
    local id
    id=$(post element "$(jq -nc --arg s "$1" '{using: "css selector", value: $s}')" \
      | jq -r '.value["element-6066-11e4-a52e-4f735466cecf"] // empty')
    [ -n "$id" ] && { echo "$id"; return; }
    sleep 0.2
  done
  echo "no $1 on the page" >&2
  return 1
}
type() { post "element/$1/value" "$(jq -nc --arg t "$2" '{text: $t}')" >/dev/null; }
enter=$'\uE007'

post url "$(jq -nc --arg u "$app/" '{url: $u}')" >/dev/null
type "$(element '#username')" dev
type "$(element '#password')" "dev$enter"
element '#tenant-env option[value]' >/dev/null
type "$(element '#new-title')" "$title"
post "element/$(element '#create-button')/click" '{}' >/dev/null
type "$(element '#message-input')" "$text$enter"
finished=false
for _ in $(seq 1 600); do
  finished=$(script 'return document.body.innerText.includes("Done ·");')
  [ "$finished" = true ] && break
  sleep 0.5
done
[ "$finished" = true ] || { echo "The turn did not complete within 5 minutes" >&2; exit 1; }
script 'document.activeElement.blur(); window.scrollTo(0, 0); return 0;' >/dev/null
curl -s "$driver/session/$session/screenshot" | jq -r .value | base64 -d >"$out"
echo "Saved $out"
