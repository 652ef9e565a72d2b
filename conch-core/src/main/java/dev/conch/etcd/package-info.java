/**
 * The etcd store, byte for byte in the key layout of etcd's {@code concurrency.Election} and {@code
 * etcdctl elect}: a candidate's key is {@code <prefix><office>/<lease hex>}, and the key with the
 * smallest create revision leads; that revision is the fencing token.
 *
 * <p>Entry points: {@link dev.conch.etcd.EtcdClients} builds a jetcd client with deadlines on every
 * call; {@link dev.conch.etcd.EtcdSession} is one process's lease, shared by all its offices, and
 * makes their elections; {@link dev.conch.etcd.LeaderWatcher} follows who leads an office. Inside:
 * {@code LeaseKeeper} renews the lease on a budget ({@code RenewalBudget}) and confirms every held
 * key in the same round; {@code EtcdOffice} and {@code EtcdCampaign} campaign without a thread per
 * office; {@code EtcdGrant} is a held term; {@code PendingAction}s (resigns, withdrawals, revokes)
 * are retried until etcd answers.
 */
@NullMarked
package dev.conch.etcd;

import org.jspecify.annotations.NullMarked;
