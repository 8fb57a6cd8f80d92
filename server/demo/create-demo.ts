import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import { contract } from '../../contract/index.js';
import type { TUserRef } from '../../contract/common/content.js';
import type { UnitOfWork } from '../db/unit-of-work.js';
import type { ApplicationContext } from '../http/context.js';
import type { Services } from '../services.js';
import { tryItLines, type TryIt } from './try-it.js';
import { normalizeEmail } from '../domains/accounts/service.js';

/**
 * The sample workspace of `npm run demo` / `cli demo`: a new workspace filled
 * through the services the HTTP routers call, with each request first parsed
 * by its operation's own schema (defaults and refinements as over HTTP).
 * The whole of it is one unit of work: a demo that fails halfway leaves
 * nothing behind, not a workspace with half its data.
 */

type Operation = { body: z.ZodTypeAny };
type DataIn<O extends Operation> = z.input<O['body']>['data'];
type DataOut<O extends Operation> = z.output<O['body']>['data'];

/** `data` as an HTTP request would deliver it to the router: validated and defaulted by the operation's schema. */
function parsed<O extends Operation>(operation: O, data: DataIn<O>): DataOut<O> {
  return (operation.body.parse({ data }) as { data: DataOut<O> }).data;
}

const ada = { userId: 'user-ada', name: 'Ada Lovelace', email: 'ada@example.com' };
const grace = { userId: 'user-grace', name: 'Grace Hopper', email: 'grace@example.com' };
const alan = { userId: 'user-alan', name: 'Alan Turing', email: 'alan@example.com' };
const katherine = { userId: 'user-katherine', name: 'Katherine Johnson', email: 'katherine@example.com' };
const ref = (user: TUserRef): TUserRef => ({ userId: user.userId });

/** The sample data: fixed, readable IDs (they are scoped by the new application, so every run can reuse them). */
export const DEMO = {
  organizations: [
    { organizationId: 'org-acme', organizationName: 'Acme Corp' },
    { organizationId: 'org-globex', organizationName: 'Globex' },
  ],
  folders: [{ organizationId: 'org-acme', folderId: 'folder-roadmap', folderName: 'Roadmap' }],
  documents: [
    { organizationId: 'org-acme', documentId: 'doc-q3-plan', documentName: 'Q3 plan', folderId: 'folder-roadmap' },
    { organizationId: 'org-acme', documentId: 'doc-launch-checklist', documentName: 'Launch checklist', folderId: 'folder-roadmap' },
    { organizationId: 'org-acme', documentId: 'doc-design-review', documentName: 'Design review' },
    { organizationId: 'org-globex', documentId: 'doc-onboarding', documentName: 'Onboarding guide' },
  ],
  members: [
    { organizationId: 'org-acme', users: [{ ...ada, accessRole: 'editor' }, { ...grace, accessRole: 'editor' }, { ...alan, accessRole: 'viewer' }] },
    { organizationId: 'org-globex', users: [{ ...katherine, accessRole: 'editor' }, { ...ada, accessRole: 'viewer' }] },
  ],
  users: [ada, grace, alan, katherine],
} as const;

export interface DemoOptions {
  /** Default: a new `demo-<random>@example.com`, so every run makes its own workspace. */
  ownerEmail?: string;
  /** Where the printed curl lines send their requests. */
  baseUrl: string;
}

export interface DemoResult {
  /** As `workspace create` prints them. */
  credentials: { workspaceId: string; workspaceAuthToken: string; apiKey: string; authToken: string };
  ownerEmail: string;
  baseUrl: string;
  created: {
    organizations: { organizationId: string; organizationName: string }[];
    folders: { organizationId: string; folderId: string; folderName: string }[];
    documents: { organizationId: string; documentId: string; documentName: string; folderId: string | null }[];
    users: { userId: string; name: string; email: string; access: { organizationId: string; accessRole: string }[] }[];
    commentAnnotations: { organizationId: string; documentId: string; annotationId: string; commentIds: string[] }[];
    reactions: { annotationId: string; commentId: string; reactionId: string; icon: string; userId: string }[];
    /** What each user received, per organization: the comment events' notifications and the custom one. */
    notifications: { organizationId: string; userId: string; notificationIds: string[] }[];
    activityIds: { organizationId: string; activityIds: string[] }[];
  };
  tryIt: TryIt[];
}

export async function createDemo(services: Services, uow: UnitOfWork, options: DemoOptions): Promise<DemoResult> {
  // Printed as stored (trimmed, lower-cased), so the output names the address `workspace get` shows.
  const ownerEmail = normalizeEmail(options.ownerEmail ?? `demo-${randomBytes(4).toString('hex')}@example.com`);
  return uow.run(async () => {
    const { accounts, organizations, users, comments, notifications, activities, workspaceConfig } = services;
    const credentials = await accounts.createWorkspace({ ownerEmail, name: 'Demo workspace' });
    // Verified, so the keys keep working under UNVERIFIED_KEY_GRACE_DAYS.
    await accounts.verifyOwnerEmail(ownerEmail);
    // The principal the authentication middleware would set for a request with these credentials.
    const principal = await accounts.authenticateApplication(credentials.apiKey, credentials.authToken);
    const app: ApplicationContext = { kind: 'application', ...principal, apiKey: credentials.apiKey };

    // On, so the comment events below are logged as activity (a new application starts with it off).
    await workspaceConfig.updateActivityConfig(app.apiKeyId, parsed(contract.workspace.updateActivityConfig, { isEnabled: true }));

    for (const organization of DEMO.organizations) await organizations.addOrganization(app, parsed(contract.organizations.addOrganization, organization));
    for (const folder of DEMO.folders) await organizations.addFolder(app, parsed(contract.organizations.addFolder, folder));
    for (const document of DEMO.documents) await organizations.addDocument(app, parsed(contract.organizations.addDocument, document));
    for (const { organizationId, users: members } of DEMO.members) {
      await users.addUsers(app, parsed(contract.users.addUsers, { organizationId, users: members.map((m) => ({ ...m })) }));
    }

    const acme = { organizationId: 'org-acme' };
    const planThread = { ...acme, documentId: 'doc-q3-plan', annotationId: 'ann-launch-date' };
    const designThread = { ...acme, documentId: 'doc-design-review', annotationId: 'ann-header-contrast' };
    const onboardingThread = { organizationId: 'org-globex', documentId: 'doc-onboarding', annotationId: 'ann-welcome-call' };

    // Ada asks Grace (a mention notifies her); Grace answers (a reply notifies Ada) and Alan approves.
    await comments.addCommentAnnotations(
      app,
      parsed(contract.comments.addCommentAnnotations, {
        organizationId: planThread.organizationId,
        documentId: planThread.documentId,
        commentAnnotations: [
          {
            annotationId: planThread.annotationId,
            from: ref(ada),
            location: { locationId: 'section-timeline' },
            commentData: [{ commentId: 'cmt-1', commentText: '@Grace Hopper can we move the launch to September 15?', taggedUserContacts: [ref(grace)] }],
          },
        ],
      }),
    );
    await comments.addComments(
      app,
      parsed(contract.comments.addComments, {
        ...planThread,
        commentData: [{ commentId: 'cmt-2', from: ref(grace), commentText: 'Yes, if QA signs off by August 20.' }],
      }),
    );
    const reaction = await comments.addReaction(app, parsed(contract.comments.addReaction, { ...planThread, commentId: 'cmt-2', icon: '👍', from: ref(alan) }));
    // Grace opens a high-priority thread assigned to Alan (the assignment notifies him).
    await comments.addCommentAnnotations(
      app,
      parsed(contract.comments.addCommentAnnotations, {
        organizationId: designThread.organizationId,
        documentId: designThread.documentId,
        commentAnnotations: [
          {
            annotationId: designThread.annotationId,
            from: ref(grace),
            assignedTo: ref(alan),
            priority: 'high',
            commentData: [{ commentId: 'cmt-1', commentText: 'The header text fails WCAG AA contrast on the dark theme.' }],
          },
        ],
      }),
    );
    await comments.addComments(
      app,
      parsed(contract.comments.addComments, {
        ...designThread,
        commentData: [{ commentId: 'cmt-2', from: ref(alan), commentText: 'On it: switching to the darker palette.' }],
      }),
    );
    // In the other organization, Katherine asks Ada.
    await comments.addCommentAnnotations(
      app,
      parsed(contract.comments.addCommentAnnotations, {
        organizationId: onboardingThread.organizationId,
        documentId: onboardingThread.documentId,
        commentAnnotations: [
          {
            annotationId: onboardingThread.annotationId,
            from: ref(katherine),
            commentData: [{ commentId: 'cmt-1', commentText: '@Ada Lovelace could you join the welcome call on Monday?', taggedUserContacts: [ref(ada)] }],
          },
        ],
      }),
    );

    // A custom notification to every reader of the checklist but its sender.
    await notifications.addNotification(
      app,
      parsed(contract.notifications.addNotification, {
        ...acme,
        documentId: 'doc-launch-checklist',
        actionUser: ada,
        displayHeadlineMessageTemplate: '{actionUser} shared the {document} with you',
        displayHeadlineMessageTemplateData: { document: 'Launch checklist' },
        displayBodyMessage: 'Please tick off your items before Friday.',
        notifyAll: true,
      }),
    );
    // An application-defined activity record beside the ones the comment events logged.
    await activities.addActivities(
      app,
      parsed(contract.activities.addActivities, {
        ...acme,
        activities: [
          {
            documentId: 'doc-launch-checklist',
            featureType: 'custom',
            actionType: 'checklist.shared',
            actionUser: ada,
            targetEntityId: 'doc-launch-checklist',
            displayMessageTemplate: '{{actionUser.name}} shared the launch checklist',
            displayMessageTemplateData: { actionUser: { name: ada.name } },
          },
        ],
      }),
    );

    const threads = [planThread, designThread, onboardingThread];
    const commentAnnotations: DemoResult['created']['commentAnnotations'] = [];
    for (const thread of threads) {
      const found = await comments.getComments(app, parsed(contract.comments.getComments, thread));
      commentAnnotations.push({ ...thread, commentIds: found.map((c) => c.commentId) });
    }
    const received: DemoResult['created']['notifications'] = [];
    for (const { organizationId, users: members } of DEMO.members) {
      for (const { userId } of members) {
        const page = await notifications.getNotifications(app, parsed(contract.notifications.getNotifications, { organizationId, userId, pageSize: 100 }));
        if (page.items.length > 0) received.push({ organizationId, userId, notificationIds: page.items.map((n) => n.id) });
      }
    }
    const activityIds: DemoResult['created']['activityIds'] = [];
    for (const { organizationId } of DEMO.organizations) {
      const page = await activities.getActivityLogs(app, parsed(contract.activities.getActivityLogs, { organizationId, pageSize: 100 }));
      activityIds.push({ organizationId, activityIds: page.items.map((a) => a.id) });
    }

    return {
      credentials,
      ownerEmail,
      baseUrl: options.baseUrl,
      created: {
        organizations: DEMO.organizations.map((o) => ({ ...o })),
        folders: DEMO.folders.map((f) => ({ ...f })),
        documents: DEMO.documents.map((d) => ({ ...d, folderId: 'folderId' in d ? d.folderId : null })),
        users: DEMO.users.map((user) => ({
          ...user,
          access: DEMO.members.flatMap((m) => m.users.filter((u) => u.userId === user.userId).map((u) => ({ organizationId: m.organizationId, accessRole: u.accessRole }))),
        })),
        commentAnnotations,
        reactions: [{ annotationId: planThread.annotationId, commentId: 'cmt-2', reactionId: reaction.reactionId, icon: reaction.icon, userId: alan.userId }],
        notifications: received,
        activityIds,
      },
      tryIt: tryItLines(options.baseUrl, credentials, { ada, grace }),
    };
  });
}
