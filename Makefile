# The deploy build. `sam build` runs `make build-<LogicalId>` here once per function of
# template.yaml (Metadata: BuildMethod: makefile), with ARTIFACTS_DIR set to the folder
# that function's `bootstrap` goes to. Every such target first runs the same cargo-lambda
# build of all 18 functions: the first compiles the workspace once for arm64 (one
# dependency graph, the release links in parallel), the others find everything fresh in a
# few seconds. Then each copies its own bootstrap. samconfig.toml runs them one after the
# other (parallel = false): at the same time, one's cargo-lambda would rewrite the
# bootstraps another is copying.
#
#   make bootstraps     the 18 arm64 bootstraps alone, without SAM
#
# Needs cargo-lambda and zig on PATH: scripts/sam-build.sh installs the pinned ones into
# .tools/venv and puts them there.

# Every function: its logical id in template.yaml = its binary (the function's
# Metadata.BuildProperties.Binary). tests/suites/template_drift.rs checks this list
# against the template, both ways.
FUNCTIONS := \
	AuthorizerFunction=authorizer \
	ConnectFunction=connect \
	DisconnectFunction=disconnect \
	DefaultFunction=default \
	ResumeFunction=resume \
	SendMessageFunction=send-message \
	OnMessageInsertedFunction=on-message-inserted \
	SessionPlacementRequestFunction=session-placement-request \
	CancelPlacementFunction=cancel-placement \
	RejoinSessionFunction=rejoin-session \
	OnPlacementEventFunction=on-placement-event \
	PresenceTimeoutFunction=presence-timeout \
	SubscribePresenceFunction=subscribe-presence \
	OnPresenceEventFunction=on-presence-event \
	PartyFunction=party \
	FriendsFunction=friends \
	MatchmakingFunction=matchmaking \
	OnMatchmakingEventFunction=on-matchmaking-event \
	BackendApiFunction=backend-api

CARGO ?= cargo
# The cargo profile of the bootstraps: `release` (production, fat LTO) unless told
# otherwise; scripts/sam-build.sh --dev sets dev-deploy (Cargo.toml says why).
DEPLOY_PROFILE ?= release
# Where cargo-lambda puts <binary>/bootstrap: under cargo's target folder, wherever
# CARGO_TARGET_DIR moves it. Absolute, so cargo-lambda and the copies below agree.
LAMBDA_DIR ?= $(abspath $(or $(CARGO_TARGET_DIR),target))/lambda

BINARIES := $(foreach function,$(FUNCTIONS),$(lastword $(subst =, ,$(function))))
binary_of = $(lastword $(subst =, ,$(filter $(1)=%,$(FUNCTIONS))))

.PHONY: bootstraps
# `--bin` for each, and no `-p`: cargo resolves features over the whole workspace, as
# it did when SAM built one function at a time, so the binaries are the same ones.
# cargo's progress goes to stdout, which `sam build` shows as it comes (it keeps stderr
# until the end).
bootstraps:
	$(CARGO) lambda build --profile $(DEPLOY_PROFILE) --arm64 --lambda-dir "$(LAMBDA_DIR)" $(addprefix --bin ,$(BINARIES)) 2>&1

# Refused before anything is compiled: a target SAM did not call, or a function this
# list does not have.
ifneq ($(filter build-%,$(MAKECMDGOALS)),)
ifeq ($(ARTIFACTS_DIR),)
$(error ARTIFACTS_DIR is not set: `sam build` sets it (`make bootstraps` builds without SAM))
endif
endif
$(foreach goal,$(filter build-%,$(MAKECMDGOALS)),$(if $(call binary_of,$(goal:build-%=%)),,\
	$(error no function $(goal:build-%=%) in the Makefile's FUNCTIONS: add it there as in template.yaml)))

build-%: bootstraps
	cp "$(LAMBDA_DIR)/$(call binary_of,$*)/bootstrap" "$(ARTIFACTS_DIR)/bootstrap"
