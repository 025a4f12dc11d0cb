import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { signUp, type TestAccount } from '../support/accounts';
import { describeWithProgram } from '../support/describe-with-program';
import { eventually } from '../support/eventually';
import { cbg, uploadReadings } from '../support/glucose';
import { HAPROXY } from '../support/haproxy';
import { call, graphql } from '../support/http';
import { startCluster, type Cluster, type Instance } from '../support/instances';
import { liveClient, liveSubscriptions } from '../support/live';
import { Traffic, type TrafficReport } from '../support/traffic';

/**
 * Three instances, each its own process, behind HAProxy (round robin) on one database and one
 * object store behave as one service: what one instance decides, the others know; a crash loses
 * no acknowledged write; a rolling restart under load costs clients nothing.
 */
let cluster: Cluster;
let instances: Instance[];

const basic = (account: TestAccount, password = account.password) => ({
  authorization: `Basic ${Buffer.from(`${account.email}:${password}`).toString('base64')}`,
});
const login = (url: string, account: TestAccount, password?: string) =>
  call(url, '/auth/login', { method: 'POST', headers: basic(account, password) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeWithProgram('three instances behind a load balancer', HAPROXY, () => {
  beforeAll(async () => {
    cluster = await startCluster(3);
    instances = cluster.instances;
  }, 60_000);

  afterAll(async () => cluster?.close(), 30_000);

  it('spends one login budget: five wrong passwords over three instances lock the account everywhere', async () => {
    const alice = await signUp({ url: cluster.balancer.url }, 'alice');
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const instance = instances[attempt % instances.length]!;
      expect((await login(instance.url, alice, 'not-the-password')).status).toBe(401);
    }
    for (const instance of instances) expect((await login(instance.url, alice)).status).toBe(401);
    expect((await login(cluster.balancer.url, alice)).status).toBe(401);
  });

  it('ends the other sessions on every instance when the password changes on one', async () => {
    const bob = await signUp({ url: cluster.balancer.url }, 'bob');
    const other = (await login(instances[0]!.url, bob)).headers.get('x-tidepool-session-token')!;
    // Each instance has accepted (and may remember) the other session before the change.
    for (const instance of instances)
      expect((await call(instance.url, '/auth/user', { token: other })).status).toBe(200);
    const changed = await call(instances[1]!.url, `/auth/user/${bob.userid}`, {
      method: 'PUT',
      token: bob.token,
      json: { updates: { password: 'a-new-password-1', currentPassword: bob.password } },
    });
    expect(changed.status).toBe(200);
    for (const instance of instances)
      await eventually(
        async () => (await call(instance.url, '/auth/user', { token: other })).status === 401,
        `${instance.name} refuses the ended session`,
        3_000,
      );
    expect((await call(instances[2]!.url, '/auth/user', { token: bob.token })).status).toBe(200);
  });

  it('shows an upload through one instance in the summary read through another and live on a third', async () => {
    const carol = await signUp({ url: cluster.balancer.url }, 'carol');
    const [uploader, reader, live] = instances as [Instance, Instance, Instance];
    const dashboard = liveClient(live.url, carol.token);
    const before = await liveSubscriptions(live.url);
    const updates = dashboard.subscribe(
      `subscription ($userId: ID!) { glucoseSummaryUpdated(userId: $userId) {
         userId glucoseSummary(period: ONE_DAY) { cgm { period { totalRecords } } } } }`,
      { userId: carol.userid },
    );
    await eventually(async () => (await liveSubscriptions(live.url)) > before, `${live.name} follows the subscription`);
    const newest = Math.floor((Date.now() - 3_600_000) / 300_000) * 300_000;
    await uploadReadings(
      uploader,
      carol.userid,
      carol.token,
      [0, 1, 2].map((step) => cbg(newest - step * 300_000, 120)),
    );

    const pushed = await updates.next();
    expect(pushed.data?.glucoseSummaryUpdated.glucoseSummary.cgm.period.totalRecords).toBe(3);
    await eventually(async () => {
      const reply = await graphql(
        reader.url,
        '{ me { glucoseSummary(period: ONE_DAY) { cgm { dates { outdatedSince } period { totalRecords } } } } }',
        {},
        carol.token,
      );
      const cgm = reply.body.data?.me.glucoseSummary?.cgm;
      return cgm?.dates.outdatedSince === null && cgm.period.totalRecords === 3;
    }, `${reader.name} reads the summary of the upload`);
    await updates.stop();
    await dashboard.dispose();
  });

  it('loses no acknowledged write when an instance is killed, and no request in rolling restarts', async () => {
    const url = cluster.balancer.url;
    const writers = await Promise.all(
      [1, 2, 3, 4].map(async () => {
        const account = await signUp({ url }, 'writer');
        const opened = await call(url, `/v1/users/${account.userid}/datasets`, {
          token: account.token,
          json: { dataSetType: 'continuous' },
        });
        expect(opened.status).toBe(201);
        return { account, datasetId: opened.body.data.id as string };
      }),
    );
    const traffic = new Traffic(url, writers, [writers[0]!.account, writers[1]!.account]);
    await sleep(1_000);

    traffic.enter('kill -9');
    const victim = instances[1]!;
    await victim.kill();
    await sleep(1_000);
    await victim.start();
    await eventually(async () => (await cluster.balancer.server(victim.name)).status === 'UP', 'it is back in');

    traffic.enter('rolling restart');
    const exits: number[] = [];
    for (const instance of instances) {
      await cluster.balancer.setState(instance.name, 'drain');
      await eventually(async () => (await cluster.balancer.server(instance.name)).current === 0, 'it has drained');
      exits.push(await instance.stop());
      await instance.start();
      await cluster.balancer.setState(instance.name, 'ready');
      await eventually(async () => (await cluster.balancer.server(instance.name)).status === 'UP', 'it is back in');
    }
    await sleep(500);
    const report = await traffic.stop();

    expect(report.failures.filter((failure) => !failure.phases.includes('kill -9'))).toEqual([]);
    for (const exit of exits) expect(exit).toBeLessThan(2_000);
    // Traffic flowed in every phase: the restarts happened under load.
    for (const phase of ['warm-up', 'kill -9', 'rolling restart']) expect(report.succeeded[phase]).toBeGreaterThan(10);
    expect(await missingOrDifferent(url, report)).toEqual([]);
  }, 120_000);
});

/** Every acknowledged write read back through the balancer; every unacknowledged batch whole or absent. */
async function missingOrDifferent(url: string, report: TrafficReport): Promise<string[]> {
  const problems: string[] = [];
  const storedTimes = new Map<string, Set<string>>();
  const timesOf = async (owner: TestAccount) => {
    if (!storedTimes.has(owner.userid)) {
      const reply = await call(url, `/data/${owner.userid}?type=cbg`, { token: owner.token });
      expect(reply.status).toBe(200);
      storedTimes.set(owner.userid, new Set((reply.body as { time: string }[]).map((record) => record.time)));
    }
    return storedTimes.get(owner.userid)!;
  };
  for (const write of report.acknowledged) {
    if (write.kind === 'blob') {
      const content = await fetch(`${url}/v1/blobs/${write.id}/content`, {
        headers: { authorization: `Bearer ${write.owner.token}` },
      });
      const digest = createHash('sha256')
        .update(Buffer.from(await content.arrayBuffer()))
        .digest('hex');
      if (content.status !== 200 || digest !== write.sha256) problems.push(`blob ${write.id}: ${content.status}`);
    } else {
      const stored = await timesOf(write.owner);
      const missing = write.times.filter((time) => !stored.has(time));
      if (missing.length) problems.push(`readings of ${write.owner.userid}: ${missing.length} missing`);
    }
  }
  for (const batch of report.unacknowledged) {
    const stored = await timesOf(batch.owner);
    const found = batch.times.filter((time) => stored.has(time)).length;
    if (found !== 0 && found !== batch.times.length)
      problems.push(`a failed batch of ${batch.owner.userid} is half stored`);
  }
  return problems;
}
