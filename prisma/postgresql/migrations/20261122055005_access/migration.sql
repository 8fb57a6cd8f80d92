-- CreateTable
CREATE TABLE "Organization" (
    "apiKeyId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Organization_pkey" PRIMARY KEY ("apiKeyId","id")
);

-- CreateTable
CREATE TABLE "Folder" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "parentId" TEXT,
    "accessType" TEXT NOT NULL DEFAULT 'organizationPrivate',
    "inheritAccessFromParent" BOOLEAN NOT NULL DEFAULT true,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Folder_pkey" PRIMARY KEY ("apiKeyId","organizationId","id")
);

-- CreateTable
CREATE TABLE "Document" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "folderId" TEXT,
    "accessType" TEXT NOT NULL DEFAULT 'organizationPrivate',
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Document_pkey" PRIMARY KEY ("apiKeyId","organizationId","id")
);

-- CreateTable
CREATE TABLE "User" (
    "apiKeyId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "initial" TEXT NOT NULL,
    "profile" TEXT NOT NULL DEFAULT '{}',
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "User_pkey" PRIMARY KEY ("apiKeyId","id")
);

-- CreateTable
CREATE TABLE "Grant" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "resourceType" TEXT NOT NULL,
    "resourceId" TEXT NOT NULL,
    "principalType" TEXT NOT NULL,
    "principalId" TEXT NOT NULL,
    "accessRole" TEXT NOT NULL,
    "expiresAt" INTEGER,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Grant_pkey" PRIMARY KEY ("apiKeyId","organizationId","resourceType","resourceId","principalType","principalId")
);

-- CreateTable
CREATE TABLE "UserGroup" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UserGroup_pkey" PRIMARY KEY ("apiKeyId","organizationId","id")
);

-- CreateTable
CREATE TABLE "UserGroupMember" (
    "apiKeyId" TEXT NOT NULL,
    "organizationId" TEXT NOT NULL,
    "groupId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UserGroupMember_pkey" PRIMARY KEY ("apiKeyId","organizationId","groupId","userId")
);

-- CreateTable
CREATE TABLE "SigningKey" (
    "kid" TEXT NOT NULL,
    "apiKeyId" TEXT NOT NULL,
    "publicJwk" TEXT NOT NULL,
    "privateJwkSealed" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retiredAt" TIMESTAMP(3),

    CONSTRAINT "SigningKey_pkey" PRIMARY KEY ("kid")
);

-- CreateIndex
CREATE INDEX "Organization_apiKeyId_createdAt_id_idx" ON "Organization"("apiKeyId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Folder_apiKeyId_organizationId_parentId_idx" ON "Folder"("apiKeyId", "organizationId", "parentId");

-- CreateIndex
CREATE INDEX "Document_apiKeyId_organizationId_createdAt_id_idx" ON "Document"("apiKeyId", "organizationId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Document_apiKeyId_organizationId_folderId_createdAt_id_idx" ON "Document"("apiKeyId", "organizationId", "folderId", "createdAt", "id");

-- CreateIndex
CREATE INDEX "Grant_apiKeyId_principalType_principalId_organizationId_idx" ON "Grant"("apiKeyId", "principalType", "principalId", "organizationId");

-- CreateIndex
CREATE INDEX "UserGroupMember_apiKeyId_organizationId_userId_idx" ON "UserGroupMember"("apiKeyId", "organizationId", "userId");

-- CreateIndex
CREATE INDEX "SigningKey_apiKeyId_createdAt_idx" ON "SigningKey"("apiKeyId", "createdAt");
