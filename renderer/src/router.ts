/** One route per workspace; hash history so that it works from file:// in Electron. */
import { createRouter, createWebHashHistory, type RouteRecordRaw } from 'vue-router';

export const workspaces = [
  { path: '/editor', name: 'editor', title: 'Particle editor', key: '1' },
  { path: '/batch', name: 'batch', title: 'Batch manager', key: '2' },
  { path: '/inspector', name: 'inspector', title: 'Inspector', key: '3' },
  { path: '/history', name: 'history', title: 'History', key: '4' },
] as const;

export const routes: RouteRecordRaw[] = [
  { path: '/', redirect: '/batch' },
  { path: '/editor', name: 'editor', component: () => import('./workspaces/editor/EditorWorkspace.vue') },
  { path: '/batch', name: 'batch', component: () => import('./workspaces/batch/BatchWorkspace.vue') },
  {
    path: '/inspector/:runId?',
    name: 'inspector',
    component: () => import('./workspaces/inspector/InspectorWorkspace.vue'),
    props: true,
  },
  { path: '/history', name: 'history', component: () => import('./workspaces/history/HistoryWorkspace.vue') },
  { path: '/:pathMatch(.*)*', redirect: '/batch' },
];

export function makeRouter() {
  return createRouter({ history: createWebHashHistory(), routes });
}
