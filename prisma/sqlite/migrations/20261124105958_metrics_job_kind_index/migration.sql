-- CreateIndex
CREATE INDEX "Job_state_kind_runAt_idx" ON "Job"("state", "kind", "runAt");
